/// An import of another tool's items, planned: the changes each annotation makes, kept in the import's scratch
/// database in the order they were planned, and what the planning counted.
struct InteropImportPlan {
    let scratch: ImportScratch
    var report: InteropImportReport

    /// Adds the changes of the next annotation.
    func append(_ annotation: PlannedAnnotation) throws {
        let db = scratch.db
        try db.execute(
            sql: """
                INSERT INTO planned (annotation, orphaned, orphan_location, orphan_text, orphan_reason)
                VALUES (?, ?, ?, ?, ?)
                """,
            arguments: [annotation.id, annotation.orphaned, annotation.orphan?.location, annotation.orphan?.text,
                        annotation.orphan?.reason])
        let planned = db.lastInsertRowID
        for change in annotation.changes {
            try db.execute(
                sql: """
                    INSERT INTO planned_change (planned, change_id, hlc, device, entity, entity_id, op, fields, wall)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: StatementArguments([.integer(planned)]
                    + change.columnValues(fieldsText: try change.fields.jsonText())))
        }
    }

    /// Every annotation planned, in order, read back whole (for tests and small imports: the merge reads the
    /// plan a page at a time).
    func annotations() throws -> [PlannedAnnotation] {
        var annotations: [PlannedAnnotation] = []
        var rows: [Int64] = []
        try scratch.db.forEachRow(sql: """
            SELECT id, annotation, orphaned, orphan_location, orphan_text, orphan_reason FROM planned ORDER BY id
            """) { row in
            rows.append(try row.int64(0))
            annotations.append(PlannedAnnotation(id: try row.string(1), changes: [], orphaned: try row.bool(2),
                                                 orphan: Self.orphan(row, from: 3)))
        }
        for (index, row) in rows.enumerated() {
            annotations[index].changes = try scratch.db.fetchAll(
                sql: "SELECT \(Change.quarantineColumns) FROM planned_change WHERE planned = ? ORDER BY id",
                arguments: [row]) { try Change(row: $0) }
        }
        return annotations
    }

    /// How many changes are planned, and how many of them the log does not hold (once `markKnown` has run).
    func changeCounts() throws -> (total: Int, fresh: Int) {
        try scratch.db.fetchOne(sql: "SELECT count(*), count(*) - ifnull(sum(known), 0) FROM planned_change") {
            (try $0.int(0), try $0.int(1))
        } ?? (0, 0)
    }

    /// Marks the planned changes whose ids `isKnown` says the log holds.
    func markKnown(_ isKnown: (String) throws -> Bool) throws {
        var after: Int64 = 0
        while true {
            let page = try scratch.db.fetchAll(
                sql: "SELECT id, change_id FROM planned_change WHERE id > ? ORDER BY id LIMIT 512",
                arguments: [after]) { (try $0.int64(0), try $0.string(1)) }
            guard let last = page.last else { return }
            after = last.0
            for (id, changeID) in page where try isKnown(changeID) {
                try scratch.db.execute(sql: "UPDATE planned_change SET known = 1 WHERE id = ?", arguments: [id])
            }
        }
    }

    /// The planned changes the log does not hold, in order, read a page at a time as the merge takes them.
    func freshChanges() -> PlannedChanges {
        PlannedChanges(db: scratch.db)
    }

    /// Gives `body` each planned annotation, in order: whether it was orphaned (and why), its first change's id
    /// and whether the log held that one, and how many of its changes the log did not hold (an annotation the store
    /// holds as it is makes none).
    func forEachAnnotation(_ body: (PlannedSummary) throws -> Void) throws {
        try scratch.db.forEachRow(
            sql: """
                SELECT planned.orphaned, planned.orphan_location, planned.orphan_text, planned.orphan_reason,
                    first.change_id, first.known,
                    (SELECT count(*) FROM planned_change WHERE planned = planned.id AND known = 0)
                FROM planned LEFT JOIN planned_change AS first ON first.id =
                    (SELECT min(id) FROM planned_change WHERE planned = planned.id)
                ORDER BY planned.id
                """
        ) { row in
            try body(PlannedSummary(orphaned: try row.bool(0), orphan: Self.orphan(row, from: 1),
                                    firstChangeID: row.optionalString(4),
                                    firstKnown: row.optionalInt(5) == 1, fresh: try row.int(6)))
        }
    }
}

extension InteropImportPlan {
    /// The orphan in a row's columns `orphan_location`, `orphan_text`, `orphan_reason` from `column`; nil when
    /// the annotation was placed.
    static func orphan(_ row: Row, from column: Int) -> ImportOrphan? {
        guard let location = row.optionalString(column), let text = row.optionalString(column + 1),
              let reason = row.optionalString(column + 2) else { return nil }
        return ImportOrphan(location: location, text: text, reason: reason)
    }
}

/// What the merge counts of one planned annotation.
struct PlannedSummary {
    var orphaned: Bool
    var orphan: ImportOrphan?
    /// Its first change (a create, for an annotation the store lacks), if it makes any.
    var firstChangeID: String?
    var firstKnown: Bool
    /// How many of its changes the log did not hold.
    var fresh: Int
}

/// The changes of one annotation of an import, and what became of its text.
struct PlannedAnnotation {
    var id: String
    var changes: [Change]
    /// Whether its anchor is an orphan's (its text was not placed in the content).
    var orphaned: Bool
    /// Why, for an orphan of a highlight whose text was looked for.
    var orphan: ImportOrphan? = nil
}

/// The planned changes the log does not hold, as a sequence the merge reads as it goes. A read of the scratch
/// database that fails ends the sequence and is kept in `failure`, for the merge's caller to throw (and so roll the
/// merge back).
struct PlannedChanges: Sequence {
    let db: SQLiteDatabase
    let failure = FailureBox()

    final class FailureBox {
        var error: (any Error)?
    }

    struct Iterator: IteratorProtocol {
        let db: SQLiteDatabase
        let failure: FailureBox
        var page: [Change] = []
        var position = 0
        var after: Int64 = 0
        var done = false

        mutating func next() -> Change? {
            if position == page.count && !done {
                do {
                    var last = after
                    page = try db.fetchAll(
                        sql: """
                            SELECT \(Change.quarantineColumns), id FROM planned_change
                            WHERE id > ? AND known = 0 ORDER BY id LIMIT 256
                            """,
                        arguments: [after]
                    ) { row in
                        last = try row.int64(Change.columnCount)
                        return try Change(row: row)
                    }
                    after = last
                } catch {
                    failure.error = error
                    page = []
                }
                position = 0
                done = page.isEmpty
            }
            guard position < page.count else { return nil }
            defer { position += 1 }
            return page[position]
        }
    }

    func makeIterator() -> Iterator {
        Iterator(db: db, failure: failure)
    }
}
