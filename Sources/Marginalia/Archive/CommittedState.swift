import Foundation

/// What a store file holds as committed, read without opening it as a store: no migration runs and no interrupted
/// import is finished. What a process that was stopped can truthfully say it left behind.
public struct CommittedState: Equatable, Sendable {
    /// An archive import that commits in steps and has not finished: the next process to open the store for writing
    /// finishes it from the copy kept beside the store.
    public struct ImportInProgress: Equatable, Sendable {
        /// The archive, as it was named to the import.
        public var archive: String
        /// How many of its changes the committed steps have read (merged or found already here).
        public var changesRead: Int
        /// How many changes the archive holds; nil for an import an earlier version began.
        public var total: Int?
    }

    /// The log's name (the store's creation time): a restore makes a new log.
    public var log: String
    /// How many changes the log holds.
    public var changes: Int
    /// The sequence number of the log's newest change (0 for an empty log).
    public var headSequence: Int64
    /// The imports under way.
    public var imports: [ImportInProgress]

    /// Reads the committed state of the store at `path`.
    /// - Throws: `MarginaliaError` when the file cannot be read as a store.
    public static func read(path: String) throws -> CommittedState {
        do {
            return try read(SQLiteDatabase(path: SQLiteDatabase.fileURI(path: path, readOnly: true), mode: .readOnly))
        } catch {
            throw MarginaliaError(error)
        }
    }

    /// Reads the committed state of the store at `path` under its write lock, and holds that lock until the process
    /// ends: what a process about to exit on a signal says it left, so that no write of its own (another step of
    /// an import, on another thread) commits between the reading and the exit. Waits up to 3 s for a write under
    /// way to end (a step of this process's takes milliseconds; a lock another process holds is not waited out).
    /// - Throws: `MarginaliaError` when the store cannot be opened for writing or read, or the lock not taken.
    public static func readHoldingWrites(path: String) throws -> CommittedState {
        do {
            let db = try SQLiteDatabase(path: SQLiteDatabase.fileURI(path: path, readOnly: false), mode: .readWrite,
                                        busyTimeoutMilliseconds: 3_000)
            try db.executeScript(sql: "BEGIN IMMEDIATE")
            // Never closed: the lock goes with the process.
            heldLock.lock()
            held.append(db)
            heldLock.unlock()
            return try read(db)
        } catch {
            throw MarginaliaError(error)
        }
    }

    /// The connections `readHoldingWrites` keeps open.
    nonisolated(unsafe) private static var held: [SQLiteDatabase] = []
    private static let heldLock = NSLock()

    private static func read(_ db: SQLiteDatabase) throws -> CommittedState {
        do {
            let log = try ChangeLog(db: db).identity()
            let changes = Int(try db.int(sql: "SELECT count(*) FROM changes") ?? 0)
            let head = try db.int(sql: "SELECT coalesce(max(seq), 0) FROM changes") ?? 0
            var imports: [ImportInProgress] = []
            // A store no open of this version has migrated yet keeps its records where this version does not read
            // them; the migration of the next open that writes moves them.
            if try AdapterState.isKept(in: db) {
                for record in try PendingImport.records(in: db).values(prefix: PendingImport.keyPrefix) {
                    let pending = try PendingImport(key: record.name, text: record.value)
                    imports.append(ImportInProgress(archive: pending.archive, changesRead: pending.changesRead,
                                                    total: pending.total))
                }
            }
            return CommittedState(log: log, changes: changes, headSequence: head, imports: imports)
        } catch {
            throw MarginaliaError(error)
        }
    }
}
