/// Reads what an audit report shows from one store connection: counts by the filter's SQL conditions, and each
/// document's annotations replayed from the log. A part of its own over the connection it is given.
struct AuditReportBuilder {
    let store: StoreReader
    let filter: AuditFilter
    let conditions: AuditConditions

    init(store: StoreReader, filter: AuditFilter) throws {
        self.store = store
        self.filter = filter
        conditions = try AuditConditions(filter, store: store)
    }

    // MARK: - Summary

    /// The changes in the report by device and operation, with the first and latest time each device made one.
    func deviceCounts() throws -> [String: (counts: [String: Int], first: Int64, last: Int64)] {
        var found: [String: (counts: [String: Int], first: Int64, last: Int64)] = [:]
        try store.db.forEachRow(
            sql: """
                SELECT (SELECT id FROM devices WHERE number = device), op, count(*), min(\(ChangeLog.madeAt)),
                    max(\(ChangeLog.madeAt))
                FROM changes \(conditions.whereClause()) GROUP BY device, op
                """,
            arguments: conditions.statementArguments
        ) { row in
            let device = try row.string(0)
            var entry = found[device] ?? (counts: [:], first: .max, last: .min)
            entry.counts[try row.string(1)] = try row.int(2)
            entry.first = min(entry.first, try row.int64(3))
            entry.last = max(entry.last, try row.int64(4))
            found[device] = entry
        }
        return found
    }

    /// The changes in the report by device and day (days since 1970, UTC).
    func timeline() throws -> AuditTimeline {
        var counted: [(device: String, day: Int64, count: Int)] = []
        try store.db.forEachRow(
            sql: """
                SELECT (SELECT id FROM devices WHERE number = device), \(ChangeLog.madeAt) / 86400000 AS day, count(*)
                FROM changes \(conditions.whereClause()) GROUP BY device, day
                """,
            arguments: conditions.statementArguments
        ) { row in counted.append((try row.string(0), try row.int64(1), try row.int(2))) }
        return AuditTimeline(days: counted)
    }

    /// The documents with annotation changes in the report, by id.
    func documents() throws -> [AuditReport.DocumentSummary] {
        try store.db.fetchAll(
            sql: """
                SELECT coalesce(a.document, ''), count(DISTINCT c.entity_id), count(*)
                FROM changes c LEFT JOIN annotations a ON a.id = c.entity_id
                \(conditions.whereClause("c.entity = 'annotation'"))
                GROUP BY 1 ORDER BY 1
                """,
            arguments: conditions.statementArguments
        ) { row in
            AuditReport.DocumentSummary(id: try row.string(0), annotations: try row.int(1), changes: try row.int(2))
        }
    }

    /// The changes in the report to reading positions and device names, in clock order.
    func otherChanges() throws -> [Change] {
        try store.db.fetchAll(
            sql: """
                SELECT \(Change.columns) FROM changes \(conditions.whereClause("entity != 'annotation'"))
                ORDER BY \(Change.clockOrder)
                """,
            arguments: conditions.statementArguments, Change.init(row:))
    }

    // MARK: - Documents

    /// Hands over each document's annotations with their versions, one document at a time, in document order.
    /// With `checkAnchors` (content attached), each live annotation is checked and an orphan carries its reason.
    func forEachDocument(checkAnchors: Bool, _ body: (AuditDocument) throws -> Void) throws {
        var replay: Verifier.AnnotationReplay?
        try forEachDocument(checkAnchors: checkAnchors, replay: &replay, body)
    }

    /// As `forEachDocument(checkAnchors:_:)`, also feeding `replay` (when given) each annotation's changes, their
    /// fold and its current row, for verify's check of the annotations (`AuditVerification`, which gives it only a
    /// filter that reads every annotation change). A change that cannot be read, or whose fields do not fit its
    /// operation, is then handed to it and left out, as `verify` does, instead of ending the report. The current
    /// rows come with the changes, from the join that gives each change its document, not a query each.
    func forEachDocument(checkAnchors: Bool, replay: inout Verifier.AnnotationReplay?,
                         _ body: (AuditDocument) throws -> Void) throws {
        var arguments: [DatabaseValue] = []
        var clauses = ["c.entity = 'annotation'"]
        if let document = filter.document {
            clauses.append("a.document = ?")
            arguments.append(.text(document))
        }
        if let asOf = filter.asOf {
            clauses.append("c.hlc < ?")
            arguments.append(.integer(HLC(milliseconds: max(0, asOf) + 1, counter: 0).packedBound))
        }
        var document: String?
        var annotations: [AuditAnnotation] = []
        var annotationID: String?
        var changes: [Change] = []
        // For the replay: the current row of the annotation whose changes are being read (nil: it has none).
        let devices = replay == nil ? nil : try store.deviceTable()
        var stored: AnnotationRegisters?
        func endAnnotation() throws {
            if let id = annotationID {
                replay?.compare(id: id, changes, AnnotationRegisters.fold(id: id, changes), stored: stored)
                if let annotation = annotation(id: id, changes) { annotations.append(annotation) }
            }
            changes.removeAll(keepingCapacity: true)
        }
        func endDocument() throws {
            try endAnnotation()
            if let id = document, !annotations.isEmpty {
                if checkAnchors { try markOrphans(&annotations) }
                try body(AuditDocument(id: id, annotations: annotations))
            }
            annotations.removeAll(keepingCapacity: true)
        }
        // Every change of each annotation is read, those the filter leaves out too: the diffs and the text shown
        // are the ones the whole history makes.
        let registerColumns = devices == nil ? "" : ", " + Projection.annotationColumns(of: "a") + ", a.clocks"
        try store.db.forEachRow(
            sql: """
                SELECT \(Change.columns), coalesce(a.document, '')\(registerColumns) FROM changes c
                LEFT JOIN annotations a ON a.id = c.entity_id
                WHERE \(clauses.joined(separator: " AND "))
                ORDER BY coalesce(a.document, ''), c.entity_id, c.seq
                """,
            arguments: StatementArguments(arguments)
        ) { row in
            let change: Change
            if replay != nil {
                do {
                    change = try Change(row: row)
                    try change.fields.validate(for: change.operation, on: change.entity)
                } catch {
                    replay?.reject(row, error)
                    return
                }
            } else {
                change = try Change(row: row)
            }
            let rowDocument = try row.string(Change.columnCount)
            if rowDocument != document {
                try endDocument()
                document = rowDocument
                annotationID = nil
            }
            if change.entityID != annotationID {
                try endAnnotation()
                annotationID = change.entityID
                // Every row of an annotation's changes holds its current row, or NULLs when it has none.
                let first = Change.columnCount + 1
                if let devices {
                    stored = row.isNull(first) ? nil : try AnnotationRegisters(row: row, devices: devices, from: first)
                }
            }
            changes.append(change)
        }
        try endDocument()
    }

    /// One annotation from all its changes; nil when the filter shows none of them.
    private func annotation(id: String, _ changes: [Change]) -> AuditAnnotation? {
        var registers = AnnotationRegisters(id: id)
        let entries = HistoryEntry.replay(changes, into: &registers)
        let shown = entries.filter { filter.shows($0.change, deviceID: conditions.deviceID) }
        if shown.isEmpty && filter.narrowsChanges { return nil }
        let current = registers.annotation
        var deletedBy: Change?
        if current?.deleted == true {
            deletedBy = entries.last { entry in
                entry.fields.contains { $0.register == .deleted && $0.value == .flag(true) && !$0.lost }
            }?.change
        }
        return AuditAnnotation(current: current, id: id, versions: shown, deletedBy: deletedBy, orphanReason: nil)
    }

    private func markOrphans(_ annotations: inout [AuditAnnotation]) throws {
        let live = annotations.indices.filter { annotations[$0].current.map { !$0.deleted } ?? false }
        let checks = try store.anchoring.checkAnchors(live.compactMap { annotations[$0].current })
        for (index, check) in zip(live, checks) where check.status == .orphaned {
            annotations[index].orphanReason = check.reason ?? "orphaned"
        }
    }
}
