// MARK: - Projecting a whole log at once

extension StoreConnection {
    /// Whether the log and the current tables are empty, so that a merge may fill the log first and project it
    /// once at the end (`projectWholeLog`) instead of change by change.
    func projectionIsEmpty() throws -> Bool {
        try db.int(sql: """
            SELECT (SELECT count(*) FROM (SELECT 1 FROM changes LIMIT 1))
                + (SELECT count(*) FROM (SELECT 1 FROM annotations LIMIT 1))
                + (SELECT count(*) FROM (SELECT 1 FROM positions LIMIT 1))
            """) == 0
    }

    /// Builds the current tables, empty until now, from the whole log in one pass, and counts in `report` what each
    /// change did exactly as merging them one by one in the log's order would have: which created, updated or
    /// deleted an annotation, which waited for their create, which fields kept a newer value (listed in log
    /// order). Call it inside the write transaction that filled the log.
    ///
    /// The log is read through its entity index (entity id, then seq), a thousand annotations' changes at a time,
    /// so memory stays bounded; each row is written once, with its final state, in id order: the annotations' id
    /// index grows at its right edge, and the notes index sees each text once.
    func projectWholeLog(into report: inout ImportReport) throws {
        var conflicts: [(seq: Int64, conflict: MergeConflict)] = []
        /// Only the earliest ones in the log are listed: at most twice that many are kept between trims.
        func trimConflicts() {
            conflicts.sort { $0.seq < $1.seq }
            conflicts.removeLast(max(0, conflicts.count - MergeConflict.listedLimit))
        }
        // A page of annotations at a time: their ids, then all their changes, read whole before their rows are
        // written (no write runs while a statement reads the log).
        var after = ""
        var done = 0
        while true {
            let ids = try db.fetchAll(
                sql: """
                    SELECT DISTINCT entity_id FROM changes WHERE entity = 'annotation' AND entity_id > ?
                    ORDER BY entity_id LIMIT ?
                    """,
                arguments: [after, Self.mergeBatchSize]) { try $0.string(0) }
            guard let last = ids.last else { break }
            let changes = try db.fetchAll(
                sql: """
                    SELECT \(Change.columns), seq FROM changes
                    WHERE entity = 'annotation' AND entity_id > ? AND entity_id <= ? ORDER BY entity_id, seq
                    """,
                arguments: [after, last]) { row in (try Change(row: row), try row.int64(Change.columnCount)) }
            var rows: [(current: AnnotationRegisters, previous: AnnotationRegisters?)] = []
            var start = 0
            while start < changes.count {
                var end = start
                while end < changes.count, changes[end].0.entityID == changes[start].0.entityID { end += 1 }
                if let registers = replay(changes[start..<end], into: &report, conflicts: &conflicts) {
                    rows.append((registers, nil))
                }
                if conflicts.count > 2 * MergeConflict.listedLimit { trimConflicts() }
                start = end
            }
            try saveRegisters(rows)
            done += changes.count
            try reportProgress("projecting changes", done: done, every: 1)
            after = last
        }
        let positions = try db.fetchAll(
            sql: "SELECT \(Change.columns), seq FROM changes WHERE entity = 'position' ORDER BY seq"
        ) { row in (try Change(row: row), try row.int64(Change.columnCount)) }
        for (change, seq) in positions {
            let effect = try projectPosition(change)
            report.count(effect)
            conflicts += effect.conflicts.map { (seq, $0) }
        }
        trimConflicts()
        report.conflicts = conflicts.map(\.conflict)
    }

    /// One annotation's changes, in log order, applied as merging them one by one would: the registers they leave
    /// (nil when no create came), what each did counted in `report`, the fields that kept a newer value added to
    /// `conflicts` with the change's seq.
    private func replay(_ changes: ArraySlice<(Change, Int64)>, into report: inout ImportReport,
                        conflicts: inout [(seq: Int64, conflict: MergeConflict)]) -> AnnotationRegisters? {
        var registers: AnnotationRegisters?
        var waiting: [Change] = []
        for (change, seq) in changes {
            let step = AnnotationRegisters.project(change, onto: registers) { waiting + [change] }
            registers = step.registers
            if step.effect.pending { waiting.append(change) }
            if step.effect.created { waiting = [] }
            report.count(step.effect)
            conflicts += step.effect.conflicts.map { (seq, $0) }
        }
        return registers
    }
}
