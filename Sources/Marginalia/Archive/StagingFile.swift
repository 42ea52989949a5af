/// An archive staged by a connection of its own, in a private file beside the store, so that reading, inflating,
/// parsing and checking the file never holds the store's writer: only the merge does.
///
/// The file is a `TemporaryFile` (mode 0600, removed on interruption, and by the next command if a crash left
/// it); the staging connection writes it without a journal and closes; the writer then attaches it as `staging`
/// for the merge (`StoreConnection.importStaged`) and detaches it, and `remove()` deletes it.
final class StagingFile {
    /// The staged archive, as the writer sees it once the file is attached as `staging`.
    let staged: StagedArchive
    private let file: TemporaryFile

    /// Stages the archive at `path` beside the store at `store`.
    /// - Parameter forEmptyStore: whether the store had no changes when the staging began (read from a snapshot:
    ///   the merge checks again under the write lock).
    /// - Parameter progress: told how many records are staged so far; what it throws stops the staging.
    init(archive path: String, limits: ArchiveLimits, forEmptyStore: Bool, beside store: String,
         progress: (Int) throws -> Void) throws {
        file = try TemporaryFile(beside: store, purpose: "staging")
        do {
            let db = try SQLiteDatabase(path: SQLiteDatabase.fileURI(path: file.path, readOnly: false),
                                        mode: .readWrite)
            // A file thrown away after one use needs neither a journal nor syncs: "The OFF journaling mode disables
            // the rollback journal completely" https://www.sqlite.org/pragma.html#pragma_journal_mode
            try db.executeScript(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
            let summary = try StagedArchive.stage(path, limits: limits, forEmptyStore: forEmptyStore, on: db,
                                                  schema: "main", progress: progress)
            staged = StagedArchive(path: path, summary: summary, forEmptyStore: forEmptyStore, schema: "staging")
        } catch {
            file.remove()
            throw error
        }
    }

    /// Attaches the staged file to `store`'s connection as `staging`, runs `body`, and detaches it.
    func attached<T>(to store: StoreConnection, _ body: () throws -> T) throws -> T {
        try? store.db.execute(sql: "DETACH DATABASE staging")
        try store.db.execute(sql: "ATTACH DATABASE ? AS staging", arguments: [file.path])
        defer { try? store.db.execute(sql: "DETACH DATABASE staging") }
        // The merge writes the staging tables too (known changes, rebuilt records): a journal in memory lets its
        // transaction roll them back with the rest.
        try store.db.execute(sql: "PRAGMA staging.journal_mode = MEMORY")
        return try body()
    }

    /// Deletes the file.
    func remove() {
        file.remove()
    }
}

@available(*, unavailable)
extension StagingFile: Sendable {}
