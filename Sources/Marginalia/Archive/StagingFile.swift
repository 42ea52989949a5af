#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An archive staged by a connection of its own, in a private file beside the store, so that reading, inflating,
/// parsing and checking the file never holds the store's writer: only the merge does.
///
/// The file is a `TemporaryFile` (mode 0600, removed on interruption, and by the next command if a crash left
/// it); the staging connection writes it without a journal and closes; the writer then attaches it as `staging`
/// for the merge (`ArchiveImporter.importStaged`) and detaches it, and `remove()` deletes it. An import applied in
/// steps first keeps the file under a name of its own (`keep(as:)`), locked by this process, so that an
/// interrupted one can be finished by the next process to open the store (`PendingImport`).
final class StagingFile {
    /// The staged archive, as the writer sees it once the file is attached as `staging`.
    let staged: StagedArchive
    private let file: TemporaryFile
    /// Once kept: the file's name now, and the descriptor that holds its lock.
    private var kept: (path: String, descriptor: Int32)?

    /// Stages the archive at `path` beside the store at `store`.
    /// - Parameter forEmptyStore: whether the store had no changes when the staging began (read from a snapshot:
    ///   the merge checks again under the write lock). Into a store that has changes, every staged change is also
    ///   checked against the log and the quarantine of that snapshot: a change under an id the store holds with
    ///   other content is refused here, before anything is merged.
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
            let known = forEmptyStore ? 0 : try Self.checkAgainstStore(store, on: db, file: path)
            staged = StagedArchive(path: path, summary: summary, forEmptyStore: forEmptyStore, schema: "staging",
                                   known: known)
        } catch {
            file.remove()
            throw error
        }
    }

    /// Marks `known` the staged changes the store at `store` holds already in its log (and not in its quarantine),
    /// which the merge counts as duplicates without reading them again, and returns how many; then throws
    /// `ArchiveError` (`.conflict`, with the line) for the first staged change whose id the store holds, in its log
    /// or its quarantine, with other content. The store is attached read-only: its `changes`, `devices` and
    /// `quarantine` are the only tables of those names the statements can see.
    private static func checkAgainstStore(_ store: String, on db: SQLiteDatabase, file: String) throws -> Int {
        try db.attachReadOnly(path: store, as: "store")
        defer { try? db.detach("store") }
        // Compared as the merge compares them, byte for byte (the BINARY collation,
        // https://www.sqlite.org/datatype3.html#collation).
        try db.execute(sql: """
            UPDATE main.staged_records SET kind = 'known'
            WHERE kind = 'change'
                AND (SELECT \(Change.columns) FROM store.changes WHERE change_id = staged_records.change_id)
                    IS (change_id, hlc, device, entity, entity_id, op, body, wall)
                AND change_id NOT IN (SELECT change_id FROM store.quarantine)
            """)
        let known = db.changedRowCount
        // Only the changes left are compared again: usually the new ones, whose ids neither table holds.
        for (table, columns, place) in [("changes", Change.columns, "already in the store"),
                                        ("quarantine", Change.quarantineColumns, "held in quarantine")] {
            let found = try db.fetchAll(
                sql: """
                    SELECT s.line, s.change_id FROM main.staged_records AS s
                    WHERE s.kind = 'change'
                        AND EXISTS (SELECT 1 FROM store.\(table) WHERE change_id = s.change_id)
                        AND (SELECT \(columns) FROM store.\(table) WHERE change_id = s.change_id)
                            IS NOT (s.change_id, s.hlc, s.device, s.entity, s.entity_id, s.op, s.body, s.wall)
                    ORDER BY s.line LIMIT 1
                    """
            ) { row in (line: try row.int(0), id: try row.string(1)) }
            if let first = found.first {
                throw ArchiveError(file: file, line: first.line, kind: .conflict,
                                   reason: "change \(first.id) differs from the change with the same id \(place)")
            }
        }
        return known
    }

    /// The file's path now.
    var path: String { kept?.path ?? file.path }

    /// Flushes the staged file to disk and renames it to `destination`, still locked by this process: from now on
    /// it outlives an interruption or a crash, for `PendingImport` to finish the import from it.
    /// - Returns: the kept file's size and SHA-256, which it must still have for an import to be finished from it.
    func keep(as destination: String) throws -> KeptCopy.Fingerprint {
        if kept == nil { kept = (destination, try file.keepLocked(as: destination)) }
        guard let kept else { throw IOError.closed(destination) }
        return try KeptCopy.fingerprint(of: kept.descriptor, path: kept.path)
    }

    /// Attaches the staged file to `store`'s connection as `staging`, runs `body`, and detaches it.
    func attached<T>(to store: some StoreAccess, _ body: () throws -> T) throws -> T {
        try Self.attach(path, to: store, body)
    }

    /// Attaches the staged file at `path` to `store`'s connection as `staging`, runs `body`, and detaches it.
    static func attach<T>(_ path: String, to store: some StoreAccess, _ body: () throws -> T) throws -> T {
        try? store.db.execute(sql: "DETACH DATABASE staging")
        try store.db.execute(sql: "ATTACH DATABASE ? AS staging", arguments: [path])
        defer { try? store.db.execute(sql: "DETACH DATABASE staging") }
        // The merge writes the staging tables too (known changes, rebuilt records): a journal in memory lets its
        // transaction roll them back with the rest.
        try store.db.execute(sql: "PRAGMA staging.journal_mode = MEMORY")
        return try body()
    }

    /// Releases the lock of a kept file and leaves the file where it is, for the next process to open the store
    /// to finish the import from it (or, if no step of it was recorded, to remove it).
    func leaveForNextOpen() {
        guard let kept else { return }
        try? SystemIO.close(kept.descriptor, path: kept.path)
        self.kept = nil
        left = true
    }
    private var left = false

    /// Deletes the file (and releases its lock, once kept); does nothing once left for the next open.
    func remove() {
        if left { return }
        if let kept {
            unlink(kept.path)
            try? SystemIO.close(kept.descriptor, path: kept.path)
            self.kept = nil
        } else {
            file.remove()
        }
    }
}

@available(*, unavailable)
extension StagingFile: Sendable {}
