// MARK: - Projecting a whole log at once

extension Merger {
    /// Whether the log and the current tables are empty, so that a merge may fill the log first and project it
    /// once at the end (`projectWholeLog`) instead of change by change.
    func projectionIsEmpty() throws -> Bool {
        try Self.projectionIsEmpty(db)
    }

    /// Whether the log and the current tables of `db` are empty (`projectionIsEmpty()`).
    static func projectionIsEmpty(_ db: any Database) throws -> Bool {
        try db.int(sql: """
            SELECT (SELECT count(*) FROM (SELECT 1 FROM changes LIMIT 1))
                + (SELECT count(*) FROM (SELECT 1 FROM annotations LIMIT 1))
                + (SELECT count(*) FROM (SELECT 1 FROM positions LIMIT 1))
            """) == 0
    }

    /// Builds the current tables, empty until now, from the whole log in one pass, and counts in `report` what each
    /// change did exactly as merging them one by one in the log's order would have: which created, updated or
    /// deleted an annotation, which waited for their create, which fields kept a newer value (listed in log
    /// order). Call it inside the write transaction that filled the transaction.log.
    ///
    /// The log is read through its entity index (entity id, then seq), a thousand annotations' changes at a time,
    /// so memory stays bounded; each row is written once, with its final state, in id order: the annotations' id
    /// index grows at its right edge, and the notes index sees each text once. Reading and writing SQLite stay on
    /// this thread; a second one parses each page's changes and replays them (`ProjectedPage`), a page ahead.
    ///
    /// With `records`, a table of (`id`, `text`) and the members to lead with, each annotation's JSON text
    /// (`JSONWriter.annotation(_:leading:)`: an archive's state record when it leads with the record's type) goes
    /// there too, written on the second thread, for an import to compare
    /// with the file's.
    func projectWholeLog(into report: inout MergeReport,
                         keepingRecordsIn records: (table: String, leading: [(key: String, value: String)])? = nil)
        throws
    {
        // Every device of the log is numbered: the rows' clocks are encoded against this table, on the other thread.
        let devices = try DeviceTable(db)
        let pages = BoundedQueue<[(columns: [String], seq: Int64)]>(capacity: 2)
        let projected = BoundedQueue<ProjectedPage>(capacity: 2)
        let projecting = BackgroundWork { () throws -> Void in
            defer { projected.close() }
            do {
                while let page = pages.take() {
                    try projected.put(try ProjectedPage(page, devices: devices, leading: records?.leading))
                }
            } catch {
                pages.cancel()
                throw error
            }
        }
        defer {
            pages.cancel()
            projected.cancel()
            _ = projecting.wait()
        }
        var conflicts: [(seq: Int64, conflict: MergeConflict)] = []
        var done = 0
        var waiting = 0
        /// Writes the next page the other thread projected, and counts what its changes did.
        func writeNextPage() throws {
            guard let page = projected.take() else {
                try projecting.wait().get()
                throw StoreError.corruptRow(reason: "the projection of the log ended before its last page")
            }
            try transaction.projection.save(page.rows)
            if let records {
                for (id, text) in page.records {
                    try db.execute(sql: "INSERT INTO \(records.table) (id, text) VALUES (?, ?)", arguments: [id, text])
                }
            }
            report.add(page.report)
            conflicts += page.conflicts
            // Only the earliest ones in the log are listed: at most twice that many are kept between trims.
            if conflicts.count > 2 * MergeConflict.listedLimit { Self.trim(&conflicts) }
            done += page.changes
            waiting -= 1
            try transaction.reportProgress("projecting changes", done: done, every: 1)
        }
        // A page of annotations at a time: their ids, then all their changes, read whole before any row is written
        // (no write runs while a statement reads the log).
        var after = ""
        while let next = try annotationPage(after: after) {
            do {
                try pages.put(next.page)
            } catch {
                // The other thread stopped: its error is the one to tell.
                try projecting.wait().get()
                throw error
            }
            waiting += 1
            if waiting > 1 { try writeNextPage() }
            after = next.last
        }
        pages.close()
        while waiting > 0 { try writeNextPage() }
        try projecting.wait().get()
        try projectPositionsAndDevices(into: &report, conflicts: &conflicts)
        Self.trim(&conflicts)
        report.conflicts = conflicts.map(\.conflict)
    }

    /// The stored changes of the next `batchSize` annotations after id `after`, in id order then log order, and
    /// the last of those ids; nil when no annotation follows.
    private func annotationPage(after: String) throws -> (page: [(columns: [String], seq: Int64)], last: String)? {
        let ids = try db.fetchAll(
            sql: """
                SELECT DISTINCT entity_id FROM changes WHERE entity = 'annotation' AND entity_id > ?
                ORDER BY entity_id LIMIT ?
                """,
            arguments: [after, Self.batchSize]) { try $0.string(0) }
        guard let last = ids.last else { return nil }
        let page = try db.fetchAll(
            sql: """
                SELECT \(Change.columns), seq FROM changes
                WHERE entity = 'annotation' AND entity_id > ? AND entity_id <= ? ORDER BY entity_id, seq
                """,
            arguments: [after, last]
        ) { row in (try Change.storedColumns(in: row), try row.int64(Change.columnCount)) }
        return (page, last)
    }

    /// Projects the reading positions' and the devices' changes one by one, in log order (few beside the
    /// annotations'), counting what they did and their conflicts.
    private func projectPositionsAndDevices(into report: inout MergeReport,
                                            conflicts: inout [(seq: Int64, conflict: MergeConflict)]) throws {
        let changes = try db.fetchAll(
            sql: "SELECT \(Change.columns), seq FROM changes WHERE entity IN ('position', 'device') ORDER BY seq"
        ) { row in (try Change(row: row), try row.int64(Change.columnCount)) }
        for (change, seq) in changes {
            let effect = try transaction.project(change)
            report.count(effect)
            conflicts += effect.conflicts.map { (seq, $0) }
        }
    }

    /// Keeps the `MergeConflict.listedLimit` conflicts earliest in the transaction.log.
    private static func trim(_ conflicts: inout [(seq: Int64, conflict: MergeConflict)]) {
        conflicts.sort { $0.seq < $1.seq }
        conflicts.removeLast(max(0, conflicts.count - MergeConflict.listedLimit))
    }
}

/// A page of the log replayed for `projectWholeLog`: the annotation rows its changes leave, ready to insert, their
/// state records when asked for, what each change did, and the fields that kept a newer value with the seq of the
/// change that lost.
private struct ProjectedPage {
    var rows: [RegisterRow] = []
    var records: [(id: String, text: String)] = []
    var report = MergeReport()
    var conflicts: [(seq: Int64, conflict: MergeConflict)] = []
    let changes: Int

    /// Replays `page` (changes as stored, with their seq, in entity id then seq order), annotation by annotation.
    init(_ page: [(columns: [String], seq: Int64)], devices: DeviceTable,
         leading: [(key: String, value: String)]?) throws {
        changes = page.count
        var writer = JSONWriter(capacity: leading != nil ? 4096 : 0)
        var start = 0
        while start < page.count {
            var end = start
            let entity = page[start].columns[Change.Column.entityID.rawValue].utf8
            // Byte for byte, as the id index orders them (Swift's == would join canonically equivalent ids).
            while end < page.count, page[end].columns[Change.Column.entityID.rawValue].utf8.elementsEqual(entity) {
                end += 1
            }
            var registers: AnnotationRegisters?
            var waiting: [Change] = []
            for (columns, seq) in page[start..<end] {
                let change = try Change(stored: columns)
                let step = AnnotationRegisters.project(change, onto: registers) { waiting + [change] }
                registers = step.registers
                if step.effect.pending { waiting.append(change) }
                if step.effect.created { waiting = [] }
                report.count(step.effect)
                conflicts += step.effect.conflicts.map { (seq, $0) }
            }
            if let registers, let row = try RegisterRow(registers, previous: nil, devices: devices) {
                rows.append(row)
                if let leading, let annotation = registers.annotation {
                    writer.reset()
                    try writer.annotation(annotation, leading: leading)
                    records.append((annotation.id, String(decoding: writer.bytes, as: UTF8.self)))
                }
            }
            start = end
        }
    }
}
