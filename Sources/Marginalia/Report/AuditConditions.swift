/// The SQL conditions on `changes` an `AuditFilter` makes, with their bound values: what the report's summary
/// queries count.
struct AuditConditions {
    private(set) var clauses: [String] = []
    private(set) var arguments: [DatabaseValue] = []
    /// The device the filter names, resolved to its id.
    let deviceID: String?

    init(_ filter: AuditFilter, store: StoreReader) throws {
        deviceID = try filter.device.map { try store.ids.resolve($0, kind: .device) }
        if let since = filter.since {
            add("\(ChangeLog.madeAt) >= ?", .integer(since))
        }
        if let until = filter.until {
            add("\(ChangeLog.madeAt) < ?", .integer(until))
        }
        if let asOf = filter.asOf {
            add("hlc < ?", .integer(HLC(milliseconds: max(0, asOf) + 1, counter: 0).packedBound))
        }
        if let deviceID {
            add("device = (SELECT number FROM devices WHERE id = ?)", .text(deviceID))
        }
        if let document = filter.document {
            clauses.append("""
                (entity = 'annotation' AND entity_id IN (SELECT id FROM annotations WHERE document = ?)
                    OR entity = 'position' AND entity_id = ?)
                """)
            arguments += [.text(document), .text(document)]
        }
    }

    private mutating func add(_ clause: String, _ value: DatabaseValue) {
        clauses.append(clause)
        arguments.append(value)
    }

    /// `WHERE …` with `extra` conditions too, or nothing.
    func whereClause(_ extra: String...) -> String {
        let all = clauses + extra
        return all.isEmpty ? "" : "WHERE " + all.joined(separator: " AND ")
    }

    var statementArguments: StatementArguments { StatementArguments(arguments) }
}
