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
