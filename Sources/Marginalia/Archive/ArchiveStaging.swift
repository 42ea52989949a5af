/// An archive read, inflated and checked completely, its records staged in a temporary table of the store's
/// connection (`temp.staged_records`), ready to be merged under the write lock.
struct StagedArchive {
    let path: String
    let summary: ArchiveSummary
    /// Whether the state records were staged too: only for a store that was empty, the one case they are checked.
    let hasStates: Bool
}

extension StoreConnection {
    /// Reads the whole archive (inflating, parsing and checking every record and the trailer) into
    /// `temp.staged_records`, without taking the write lock: temporary tables live in the connection's own
    /// temporary database, not in the store. An invalid file throws before anything is staged for good.
    func stageArchive(path: String, limits: ArchiveLimits) throws -> StagedArchive {
        // The log only grows: a store that is not empty now is not empty under the write lock either.
        let hasStates = try changeCount() == 0
        try db.executeScript(sql: """
            CREATE TEMP TABLE IF NOT EXISTS staged_records (
                line INTEGER PRIMARY KEY, kind TEXT NOT NULL, change_id TEXT, hlc TEXT, device TEXT, entity TEXT,
                entity_id TEXT, op TEXT, body TEXT NOT NULL
            );
            DELETE FROM temp.staged_records;
            """)
        var staged = 0
        // One transaction for all the inserts. It writes only this connection's private temporary database
        // (https://www.sqlite.org/tempfiles.html#temp_databases) and, being deferred, takes no write lock on the
        // store: other processes go on writing while the file is read (a test holds the lock from the progress
        // handler to prove it).
        let summary = try db.transaction(.deferred) {
            try ArchiveReader(path: path, limits: limits).readAhead { record, line in
                let arguments: StatementArguments
                switch record {
                case .header:
                    return
                case .change(let change):
                    arguments = [line, "change", change.changeID, change.hlc.description, change.device,
                                 change.entity.rawValue, change.entityID, change.operation.rawValue,
                                 try change.fields.jsonText()]
                case .annotation(let object), .position(let object):
                    guard hasStates else { return }
                    let kind: String
                    if case .annotation = record { kind = "annotation" } else { kind = "position" }
                    arguments = [line, kind, nil as String?, nil as String?, nil as String?, nil as String?,
                                 nil as String?, nil as String?, try JSONWriter.encodeString(.object(object))]
                }
                try db.execute(sql: "INSERT INTO temp.staged_records VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                               arguments: arguments)
                staged += 1
                try reportProgress("reading archive", done: staged)
            }
        }
        return StagedArchive(path: path, summary: summary, hasStates: hasStates)
    }

    /// Hands the staged records to `handle` in file order, the header first, as reading the file would.
    func replayStaged(_ staged: StagedArchive, _ handle: (ArchiveRecord, Int) throws -> Void) throws
        -> ArchiveSummary
    {
        try handle(.header(staged.summary.header), 1)
        var after = 0
        while true {
            var rows: [(record: ArchiveRecord, line: Int)] = []
            try db.forEachRow(
                sql: """
                    SELECT change_id, hlc, device, entity, entity_id, op, body, line, kind FROM temp.staged_records
                    WHERE line > ? ORDER BY line LIMIT 1000
                    """,
                arguments: [after]
            ) { row in
                let kind = try row.string(8)
                if kind == "change" {
                    rows.append((.change(try Change(row: row)), try row.int(7)))
                    return
                }
                guard case .object(let object) = try JSONParser.parse(try row.string(6)) else {
                    throw StoreError.invalidChange(reason: "a staged \(kind) record is not an object")
                }
                rows.append((kind == "annotation" ? .annotation(object) : .position(object), try row.int(7)))
            }
            guard let last = rows.last else { return staged.summary }
            for (record, line) in rows { try handle(record, line) }
            after = last.line
        }
    }

    /// Empties the staging table (its pages go back to the temporary file's free list).
    func dropStaged() throws {
        try db.execute(sql: "DELETE FROM temp.staged_records")
    }
}
