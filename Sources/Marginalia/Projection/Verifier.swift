/// A store checked whole (`verify`, what `marginalia verify` runs), and its canonical fingerprint: reads only,
/// through the connection it is given, replaying the log by the rule the current tables are kept by.
struct Verifier {
    /// The current tables of the store, and the connection it is read through.
    let projection: Projection

    var db: any Database { projection.db }

    /// Checks the store: SQLite's integrity check, that the log is intact and append-only, that every row's digest
    /// follows from the rows before it (the hash chain), and that replaying the log reproduces the current tables
    /// exactly.
    ///
    /// Reads only; memory stays bounded by one annotation's changes at a time.
    func verify() throws -> VerificationReport {
        var report = VerificationReport()
        try checkStorage(into: &report)
        try replayAnnotations(into: &report)
        try checkOthers(into: &report)
        return report
    }

    /// The checks before the replay: SQLite's integrity check, the log's guards and its hash chain.
    func checkStorage(into report: inout VerificationReport) throws {
        try checkIntegrity(into: &report)
        try checkLogGuards(into: &report)
        try checkChain(into: &report)
    }

    /// The checks after the annotations' replay: positions, device names and the roster.
    func checkOthers(into report: inout VerificationReport) throws {
        try replayPositions(into: &report)
        try replayDeviceNames(into: &report)
        try checkRoster(into: &report)
    }

    /// The roster's entries: their own hash chain whole, and every entry of the store's roster verifying.
    private func checkRoster(into report: inout VerificationReport) throws {
        let ledger = RosterLedger(db: db)
        if let broken = try ledger.chainBreak() {
            report.problems.append("roster_entries: the hash chain breaks at seq \(broken): the entries were "
                + "rewritten there or before")
        }
        guard let id = try ledger.rosterID() else { return }
        guard let roster = try ledger.roster() else {
            report.problems.append("roster_entries: no entry founds roster \(id), the one the store belongs to")
            return
        }
        for (entry, reason) in roster.unverified {
            report.problems.append("roster_entries: entry \(entry.id) (\(entry.kind.rawValue) of \(entry.device)) "
                + "does not verify: \(reason)")
        }
    }

    private func checkIntegrity(into report: inout VerificationReport) throws {
        try db.forEachRow(sql: "PRAGMA main.integrity_check") { row in
            let line = try row.string(0)
            if line != "ok" { report.problems.append("integrity_check: \(line)") }
        }
        try db.forEachRow(sql: "PRAGMA main.foreign_key_check") { row in
            report.problems.append("foreign_key_check: a row of \(try row.string(0)) refers to a missing row")
        }
    }

    private func checkLogGuards(into report: inout VerificationReport) throws {
        for trigger in ["changes_refuse_update", "changes_refuse_delete"] {
            let present = try db.int(
                sql: """
                    SELECT count(*) FROM main.sqlite_schema \
                    WHERE type = 'trigger' AND name = ? AND tbl_name = 'changes'
                    """,
                arguments: [trigger]) ?? 0
            if present == 0 {
                report.problems.append("changes: trigger \(trigger) is missing; the log is not append-only")
            }
        }
    }

    /// Recomputes the hash chain over the whole log and names its first broken row.
    private func checkChain(into report: inout VerificationReport) throws {
        let chain = try ChangeLog(db: db).recomputeChain()
        report.head = chain.head
        if let broken = chain.firstBreak {
            report.chainBreak = broken
            report.problems.append(
                "changes: the hash chain breaks at seq \(broken.sequence) (change \(broken.changeID)): its digest does "
                    + "not follow from the changes before it; the log was rewritten there or before")
        }
    }

    /// Folds each annotation's changes (streamed entity by entity) and compares with its current row, which comes
    /// joined to its changes.
    private func replayAnnotations(into report: inout VerificationReport) throws {
        var replay = AnnotationReplay()
        try projection.foldEachAnnotationWithRow(rejected: { row, error in
            replay.reject(row, error)
        }) { id, pending, expected, stored in
            replay.compare(id: id, pending, expected, stored: stored)
        }
        try replay.finish(into: &report, in: projection)
    }

    /// The replay of the annotations, fed one annotation at a time: what `verify` finds of them. Fed in the log's
    /// entity order (as `verify` streams it), the problems come in that order; fed in another order, `finish` with
    /// `inEntityOrder` puts them in it, which is the same order when no change was rejected.
    struct AnnotationReplay {
        /// Each problem with the annotation id it was found at, in the order found.
        private var problems: [(entity: String, text: String)] = []
        private var changeCount = 0
        private var replayed = 0
        /// Whether some change was rejected (its problem's place in the stream depends on the stream's order).
        private(set) var hasRejected = false

        /// A change that cannot be read, or whose fields do not fit its operation: left out of the fold.
        mutating func reject(_ row: Row, _ error: any Error) {
            hasRejected = true
            let entity = (try? row.string(Change.Column.entityID.rawValue)) ?? ""
            problems.append((entity, "changes: change \((try? Change.storedID(in: row)) ?? "?") is invalid: \(error)"))
        }

        /// Compares the fold of one annotation's changes with its current row, `stored` (nil: it has none), read
        /// by the caller in the same transaction as the changes.
        mutating func compare(id: String, _ pending: [Change], _ expected: AnnotationRegisters,
                              stored: AnnotationRegisters?) {
            changeCount += pending.count
            if let annotation = expected.annotation {
                replayed += 1
                if let stored {
                    if stored.annotation != annotation || stored.clocks != expected.clocks {
                        problems.append(
                            (id, "annotations: row \(id) differs from the replay of its \(pending.count) changes"))
                    }
                } else {
                    problems.append((id, "annotations: row \(id) is missing; its changes create it"))
                }
            } else if stored != nil {
                problems.append((id, "annotations: row \(id) exists but the log never creates it"))
            }
        }

        /// Adds the problems and counts to `report`, then the rows no change creates; with `inEntityOrder`, the
        /// problems sorted by annotation id as the log's stream meets them (entity_id compared as bytes, SQLite's
        /// BINARY collation; the sort is stable).
        func finish(into report: inout VerificationReport, in projection: Projection,
                    inEntityOrder: Bool = false) throws {
            report.changeCount += changeCount
            let ordered = !inEntityOrder ? problems : problems.enumerated().sorted { left, right in
                let (a, b) = (left.element.entity, right.element.entity)
                return a == b ? left.offset < right.offset : a.utf8.lexicographicallyPrecedes(b.utf8)
            }.map(\.element)
            // In the log's order: each change found invalid where the stream met it, between the rows.
            report.problems += ordered.map(\.text)
            let rows = Int(try projection.db.int(sql: "SELECT count(*) FROM annotations") ?? 0)
            report.annotationCount = rows
            if rows > replayed {
                try projection.db.forEachRow(
                    sql: """
                        SELECT id FROM annotations WHERE id NOT IN
                        (SELECT entity_id FROM changes WHERE entity = 'annotation' AND op = 'create')
                        """
                ) { row in
                    report.problems.append("annotations: row \(try row.string(0)) exists but the log never creates it")
                }
            }
        }
    }

    private func replayPositions(into report: inout VerificationReport) throws {
        var latest: [String: Change] = [:]
        try db.forEachRow(
            sql: "SELECT \(Change.columns) FROM changes WHERE entity = 'position'"
        ) { row in
            let change = try Change(row: row)
            report.changeCount += 1
            if let known = latest[change.entityID], known.stamp > change.stamp { return }
            latest[change.entityID] = change
        }
        var stored: [String: PositionRegister] = [:]
        try db.forEachRow(sql: "SELECT document, passage, offset, clock FROM positions") { row in
            let register = try PositionRegister(row: row)
            stored[register.document] = register
        }
        report.positionCount = stored.count
        for (document, change) in latest.sorted(by: { $0.key < $1.key }) {
            guard let position = change.fields.position else { continue }
            let expected = PositionRegister(document: document, position: position, clock: change.stamp)
            if stored[document] != expected {
                report.problems.append("positions: row \(document) differs from the replay of its changes")
            }
        }
        for document in stored.keys.sorted() where latest[document] == nil {
            report.problems.append("positions: row \(document) exists but the log never sets it")
        }
    }

    private func replayDeviceNames(into report: inout VerificationReport) throws {
        let names = DeviceNames(db: db)
        let replayed = try names.replayed()
        let stored = try names.all()
        report.changeCount += Int(try db.int(sql: "SELECT count(*) FROM changes WHERE entity = 'device'") ?? 0)
        for device in Set(replayed.keys).union(stored.keys).sorted() where replayed[device] != stored[device] {
            report.problems.append("devices: the name of \(device) differs from the replay of its changes")
        }
    }
}

// MARK: - Fingerprint

extension Verifier {
    /// A fingerprint (64-bit FNV-1a, in hex) of every row of the store's tables, in key order.
    ///
    /// Two stores with the same fingerprint hold the same rows; the same store has the same fingerprint until a
    /// write. It is a quick check that something did not change (a content swap, a refused import), not a
    /// security measure.
    func canonicalFingerprint() throws -> String {
        var hash = FNV1a()
        let tables = [("meta", "key"), ("adapter_state", "owner, name"), ("changes", "seq"), ("annotations", "id"),
                      ("positions", "document")]
        for (table, key) in tables {
            try db.forEachRow(sql: "SELECT * FROM main.\(table) ORDER BY \(key)") { row in
                for column in 0..<row.count {
                    hash.feed(UInt8(row.isNull(column) ? 0 : 1))
                    hash.feed(row.bytes(at: column))
                    hash.feed(UInt8(0x1F))
                }
            }
        }
        return hash.hex.leftPadded(to: 16, with: "0")
    }
}
