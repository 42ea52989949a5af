/// An archive read, inflated and checked completely, its records staged in a table of the store's connection
/// (`table`), ready to be merged under the write lock.
struct StagedArchive {
    let path: String
    let summary: ArchiveSummary
    /// Whether the store was empty when the file was staged: its state records were staged too (the one case they
    /// are checked), and each staged change carries the digest it takes in an empty log (`fillLog(from:)`).
    let forEmptyStore: Bool
    /// Where the staging tables are: `staging`, a temporary database of their own that `dropStaged` detaches at
    /// once, or `temp` when the connection was in a transaction already (ATTACH and DETACH cannot run in one),
    /// emptied row by row.
    let schema: String
    /// How many of the staged changes were marked `known` when staged: the store's log held them already.
    var known = 0
    /// The staged records.
    var table: String { Self.tables(in: schema).staged }
    /// The text of each annotation's state record as the changes rebuild it (`id`, `text`), which the projection
    /// fills (`projectWholeLog(into:keepingRecordsIn:)`) and `replayStaged` compares with the file's.
    var rebuiltTable: String { Self.tables(in: schema).rebuilt }

    /// The names of the staging tables in `schema`.
    static func tables(in schema: String) -> (staged: String, rebuilt: String) {
        ("\(schema).staged_records", "\(schema).rebuilt_records")
    }
}

extension StoreConnection {
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
        let forEmptyStore = try changeCount() == 0
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
            try reportProgress("reading archive", done: staged)
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

extension StagedArchive {
    /// Reads the whole archive at `path` (inflating, parsing and checking every record and the trailer) into the
    /// staging tables of `schema` on `db`, in one deferred transaction of that connection, which writes only the
    /// staging database; `progress` is told how many records are staged so far. An invalid file throws.
    ///
    /// - Parameter forEmptyStore: the store had no changes: the state records are staged too, and each change
    ///   carries the digest it takes in an empty log.
    static func stage(_ path: String, limits: ArchiveLimits, forEmptyStore: Bool, on db: any Database,
                      schema: String, progress: (Int) throws -> Void) throws -> ArchiveSummary {
        let (table, rebuilt) = StagedArchive.tables(in: schema)
        // `clock` is the change's clock as the log stores it (`HLC.packed`); `digest` the one it takes as the
        // next row of an empty log whose earlier rows are the changes staged before it. An annotation's state
        // record keeps its id in `entity_id`.
        try db.executeScript(sql: """
            CREATE TABLE IF NOT EXISTS \(table) (
                line INTEGER PRIMARY KEY, kind TEXT NOT NULL, change_id TEXT, hlc TEXT, device TEXT, entity TEXT,
                entity_id TEXT, op TEXT, body TEXT NOT NULL, wall INTEGER, clock INTEGER, digest TEXT
            );
            DELETE FROM \(table);
            CREATE TABLE IF NOT EXISTS \(rebuilt) (id TEXT PRIMARY KEY, text TEXT NOT NULL) WITHOUT ROWID;
            DELETE FROM \(rebuilt);
            """)
        var staged = 0
        var digest = ChangeDigest.genesis
        // One transaction for all the inserts. It writes only this connection's private temporary database and,
        // being deferred, takes no write lock on the store: other processes go on writing while the file is read
        // (a test holds the lock from the progress handler to prove it).
        // Only an empty store's import compares the state records with the state it rebuilds: its annotations' come
        // as their lines' text, staged as they are. Any other import stages none, and checks half of them here as
        // they come, while the reader's thread checks the other half: the state section then takes both threads.
        var reader = ArchiveReader(path: path, limits: limits)
        reader.annotationsAsText = true
        reader.halfOfAnnotationsAsText = !forEmptyStore
        return try db.transaction(.deferred) {
            try reader.readAhead { record, line in
                let arguments: StatementArguments
                switch record {
                case .header, .annotation, .receipt:
                    // An import is a receipt of its own: how the changes reached the writing store is not kept.
                    return
                case .annotationText(_, let text) where !forEmptyStore:
                    _ = try ArchiveReader.checkedAnnotation(text, line: line, file: path)
                    return
                case .annotationText(let id, let text):
                    arguments = [line, "annotation", nil as String?, nil as String?, nil as String?, nil as String?,
                                 id, nil as String?, text, nil as Int64?, nil as Int64?, nil as String?]
                case .change(let change, _):
                    let fieldsText = try change.fields.jsonText()
                    if forEmptyStore {
                        digest = try ChangeDigest.next(after: digest, change: change, fieldsText: fieldsText)
                    }
                    arguments = [line, "change", change.changeID, change.hlc.description, change.device,
                                 change.entity.rawValue, change.entityID, change.operation.rawValue, fieldsText,
                                 change.wall, change.hlc.packed, forEmptyStore ? digest : nil]
                case .position(let object):
                    guard forEmptyStore else { return }
                    arguments = [line, "position", nil as String?, nil as String?, nil as String?, nil as String?,
                                 nil as String?, nil as String?, try JSONWriter.encodeString(.object(object)),
                                 nil as Int64?, nil as Int64?, nil as String?]
                }
                try db.execute(sql: "INSERT INTO \(table) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                               arguments: arguments)
                staged += 1
                try progress(staged)
            }
        }
    }
}
