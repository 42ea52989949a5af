extension ArchiveImporter {
    /// Reads the whole archive (inflating, parsing and checking every record and the trailer) into a staging table,
    /// without taking the write lock: the staging table lives in a temporary database of the connection's own
    /// (https://www.sqlite.org/tempfiles.html#temp_databases), not in the store. An invalid file throws before
    /// anything is staged for good.
    ///
    /// "When the name of the database file handed to sqlite3_open() or to ATTACH is an empty string, then a new
    /// temporary file is created to hold the database" and "Temporary databases are automatically deleted when
    /// the connection that created them closes" https://www.sqlite.org/inmemorydb.html; a detached one is closed,
    /// and its file, unlinked when opened, goes with it: nothing is left to free page by page.
    func stageArchive(path: String, limits: ArchiveLimits) throws -> StagedArchive {
        // The log only grows: a store that is not empty now is not empty under the write lock either.
        let forEmptyStore = try store.changeCount() == 0
        let schema: String
        if db.isInTransaction {
            schema = "temp"
        } else {
            // A staging database an interrupted import left attached goes first.
            try? db.execute(sql: "DETACH DATABASE staging")
            try db.execute(sql: "ATTACH DATABASE '' AS staging")
            schema = "staging"
        }
        let summary = try StagedArchive.stage(path, limits: limits, forEmptyStore: forEmptyStore, on: db,
                                              schema: schema) { staged in
            try store.reportProgress("reading archive", done: staged)
        }
        return StagedArchive(path: path, summary: summary, forEmptyStore: forEmptyStore, schema: schema)
    }

    /// Hands the staged records to `handle` in file order, the header first, as reading the file would, but for
    /// the changes `markKnownChanges` marked; without `changes`, only the header and the state records (the
    /// changes are in the log already, `fillLog(from:)`).
    ///
    /// An annotation's state record whose text is, byte for byte, the one the projection rebuilt for it in
    /// `staged.rebuiltTable` (while `handle` took the header) is not handed: it is that good record. Every other one
    /// is, for the caller to check.
    func replayStaged(_ staged: StagedArchive, changes: Bool = true, _ handle: (ArchiveRecord, Int) throws -> Void)
        throws -> ArchiveSummary
    {
        try handle(.header(staged.summary.header), 1)
        // The reader took the header on line 1, then any receipts, and every change before the first state record:
        // without the changes, the state records are the lines after the last change.
        var after = changes ? 0 : Int(try db.int(
            sql: "SELECT coalesce(max(line), 1) FROM \(staged.table) WHERE kind IN ('change', 'known')") ?? 1)
        while true {
            var rows: [(record: ArchiveRecord, line: Int)] = []
            // IS, unlike =, is false, not NULL, against a record not rebuilt: "The IS and IS NOT operators work like
            // = and != except when one or both of the operands are NULL" https://www.sqlite.org/lang_expr.html; both
            // compare TEXT with the BINARY collation, "using memcmp()" https://www.sqlite.org/datatype3.html#collation
            try db.forEachRow(
                sql: """
                    SELECT change_id, hlc, device, entity, entity_id, op, body, wall, line, kind
                    FROM \(staged.table) AS s
                    WHERE line > ? AND kind <> 'known' AND (? OR kind <> 'change')
                        AND NOT (kind = 'annotation'
                            AND body IS (SELECT text FROM \(staged.rebuiltTable) WHERE id = s.entity_id))
                    ORDER BY line LIMIT 1000
                    """,
                arguments: [after, changes]
            ) { row in
                let kind = try row.string(9)
                if kind == "change" {
                    rows.append((.change(try Change(row: row), receipt: nil), try row.int(8)))
                    return
                }
                if kind == "annotation" {
                    rows.append((.annotationText(id: try row.string(4), text: try row.string(6)), try row.int(8)))
                    return
                }
                guard case .object(let object) = try JSONParser.parse(try row.string(6)) else {
                    throw StoreError.invalidChange(reason: "a staged \(kind) record is not an object")
                }
                rows.append((.position(object), try row.int(8)))
            }
            guard let last = rows.last else { return staged.summary }
            for (record, line) in rows { try handle(record, line) }
            after = last.line
        }
    }

    /// Ends the staging: detaches its temporary database (its file goes with it), or empties `temp.staged_records`.
    func dropStaged(_ staged: StagedArchive) throws {
        if staged.schema == "staging" {
            try db.execute(sql: "DETACH DATABASE staging")
        } else {
            try db.execute(sql: "DELETE FROM \(staged.table)")
            try db.execute(sql: "DELETE FROM \(staged.rebuiltTable)")
        }
    }
}
