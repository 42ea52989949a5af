import Foundation

/// One connection to a user database, with the store's logic over it: the change log, the current tables and
/// the content attached read-only. Confined to one thread at a time; `StoreEngine` shares connections safely (one
/// writer, a pool of readers).
final class StoreConnection {
    /// What the caller will do with the store.
    enum Access: Sendable {
        /// Read only: nothing is written; the store must exist.
        case readOnly
        /// Read and write; the store must exist.
        case readWrite
        /// Read and write; the store is created when absent.
        case create
    }

    /// Every statement of the store runs through it: it writes the rows a batch held back first.
    let db: WriteBehindDatabase
    /// The change log on this connection.
    var log: ChangeLog { ChangeLog(db: db) }
    /// The current tables on this connection, their clocks' devices numbered as this batch numbers them.
    var projection: Projection { Projection(db: db, devices: { try self.deviceTable(naming: $0) }) }
    /// The store checked whole, on this connection.
    var verifier: Verifier { Verifier(store: self) }
    /// The merger of changes from other stores, on this connection.
    var merger: Merger { Merger(store: self) }
    /// The changes held back until their time is plausible, on this connection.
    var quarantine: Quarantine { Quarantine(db: db) }
    /// What each change arrived by (an import, a merge, a sync), on this connection.
    var receipts: Receipts { Receipts(db: db) }
    /// The local writes made with the wall clock far from the store's newest change, on this connection.
    var clockNotes: ClockNotes { ClockNotes(db: db, maxDrift: clock.maxDrift) }
    /// The documents and passages of the attached content, read on this connection.
    var attached: AttachedContent { AttachedContent(db: db, info: content) }
    /// The anchors of the annotations against the attached content, on this connection.
    var anchoring: Anchoring { Anchoring(store: self) }
    /// Ids typed short and printed short, on this connection.
    var ids: ShortIDs { ShortIDs(db: db, ownDevice: deviceID) }
    /// The store as it was at a moment, and what changed between two, on this connection.
    var timeTravel: TimeTravel { TimeTravel(store: self) }
    /// Full-text search of the attached content and of the notes, on this connection.
    var search: Search { Search(db: db, knownVocabulary: content?.recordsForms) }
    /// The path the store was opened at (`:memory:` for a private in-memory store).
    let path: String
    /// This store's device id: the `device` of every change it makes.
    var deviceID: String
    var clock: HybridLogicalClock
    /// What the running `batch` knows; nil outside one.
    var batchState: BatchState?
    /// The local writes of this session made with the wall clock far from the store's newest change (each also
    /// noted in the store); the command-line tool prints them on stderr.
    var clockWarnings: [ClockWarning] = []
    /// The attached content, if any.
    var content: ContentInfo?
    /// How the store, of an older schema, was made readable when this connection opened it to read.
    var schemaUpgrade: SchemaUpgrade?
    /// The interrupted imports finished or abandoned when the store was opened (`PendingImport`).
    var interruptedImports = InterruptedImports()
    /// Called every so many items by long operations (export, import, anchor checks), to show progress.
    var progressHandler: ProgressHandler?
    /// Whether a merge may delete most of the live annotations (`DeletionBrake`); from the configuration.
    var allowsMassDeletion = false

    /// Reports progress every `every` items (and at item 0 never); there the work stops if its task was cancelled
    /// or the handler asks it to.
    /// - Throws: `CancellationError`, which rolls back the write the work is part of.
    func reportProgress(_ task: String, done: Int, total: Int? = nil, every: Int = 1000) throws {
        try Self.reportProgress(to: progressHandler, task, done: done, total: total, every: every)
    }

    /// Reports progress to `handler` every `every` items, as `reportProgress` does for a connection's handler.
    static func reportProgress(to handler: ProgressHandler?, _ task: String, done: Int, total: Int? = nil,
                               every: Int = 1000) throws {
        guard done > 0, done % every == 0 else { return }
        if Task.isCancelled { throw CancellationError() }
        guard let handler else { return }
        if handler(ProgressReport(task: task, done: done, total: total)) == .stop {
            throw CancellationError()
        }
    }

    /// Opens (or creates) the store at `path`.
    ///
    /// Opened for writing, the store first merges the quarantined changes that have become plausible.
    /// - Parameter wallClock: milliseconds since 1970, for the hybrid logical clock; injectable for tests.
    /// - Throws: `StoreError` when the store is missing, foreign or from a newer version (it is then left
    ///   untouched); `SQLiteError` from SQLite.
    static func open(path: String, access: Access,
                            wallClock: @escaping @Sendable () -> Int64 = Timestamp.nowMilliseconds) throws
        -> StoreConnection
    {
        try open(path: path, access: access, wallClock: wallClock, vfs: nil)
    }

    /// Opens the store through the registered SQLite VFS `vfs` (nil: the default): how the fault-injection tests
    /// put a simulated disk under a store.
    ///
    /// - Parameter alreadyOpen: another connection of this process has the store open (see `UserDatabase.open`).
    static func open(path: String, access: Access, wallClock: @escaping @Sendable () -> Int64, vfs: String?,
                     alreadyOpen: Bool = false,
                     configuration: AnnotationStore.Configuration = AnnotationStore.Configuration()) throws
        -> StoreConnection
    {
        let databaseAccess: UserDatabase.Access
        switch access {
        case .readOnly: databaseAccess = .readOnly
        case .readWrite: databaseAccess = .readWrite
        case .create: databaseAccess = .create
        }
        var upgrade: SchemaUpgrade?
        let db = try UserDatabase.open(path: path, access: databaseAccess, vfs: vfs, alreadyOpen: alreadyOpen,
                                       configuration: configuration, upgraded: { upgrade = $0 })
        let store = try StoreConnection(database: db, path: path, wallClock: wallClock)
        store.schemaUpgrade = upgrade
        store.allowsMassDeletion = configuration.allowsMassDeletion
        if access != .readOnly {
            try store.merger.releaseDueQuarantine()
            store.interruptedImports = ArchiveImporter(store: store).finishInterruptedImportsIfAble()
        } else if !alreadyOpen, path != ":memory:", try ArchiveImporter(store: store).hasInterruptedImports(),
                  PendingImport.mayFinish(store: path) {
            // Like a migration, finishing an interrupted import is the one write a read may make: the store is then
            // read whole, as it will be from now on.
            let writer = try open(path: path, access: .readWrite, wallClock: wallClock, vfs: vfs,
                                  configuration: configuration)
            store.interruptedImports = writer.interruptedImports
        }
        return store
    }

    /// Wraps an opened, migrated user database.
    init(database: any Database, path: String, wallClock: @escaping @Sendable () -> Int64) throws {
        db = WriteBehindDatabase(database)
        self.path = path
        guard let device = try db.text(sql: "SELECT value FROM meta WHERE key = 'device_id'") else {
            throw StoreError.notAStore(path: path, reason: "it has no device id")
        }
        deviceID = device
        let latest = try db.int(sql: "SELECT max(hlc) FROM changes").flatMap { HLC(packed: $0) } ?? .zero
        clock = HybridLogicalClock(latest: latest, wallClock: wallClock)
    }

    /// Runs many writes as one transaction: all of them are committed together when `body` returns, none when
    /// it throws. Each write inside still records its own change. A local write that fails inside fails the whole
    /// batch: nothing is committed and the batch throws its error, even when `body` caught it (see `localWrite`).
    /// The rows of the annotations it creates are written together (`deferCreate`), at the latest before it commits.
    ///
    ///     try store.batch {
    ///         for request in requests { try store.createAnnotation(.highlight, at: request) }
    ///     }
    func batch<T>(_ body: () throws -> T) throws -> T {
        return try db.transaction(.immediate) {
            // BEGIN IMMEDIATE holds the write lock until COMMIT: the log's latest clock, read once now, can only
            // be moved on by this connection, whose inserts the clock observes.
            guard !clockIsCurrent else { return try body() }
            try observeStoredState()
            batchState = BatchState()
            defer {
                batchState = nil
                db.pending = nil
            }
            let result = try body()
            try writeDeferredCreates()
            try clockNotes.write(batchState?.ownWall)
            // Thrown inside the transaction, which rolls it back.
            if let failure = batchState?.failure { throw failure }
            return result
        }
    }

    /// Whether a local write runs inside `batch`, in its transaction.
    var isInBatch: Bool { clockIsCurrent && db.isInTransaction }

    /// Runs one local write (an annotation made, edited, deleted or brought back): in a transaction of its own,
    /// or, inside `batch`, straight in the batch's transaction.
    ///
    /// A write inside a batch takes no savepoint of its own. A savepoint would let its failure undo it alone, but
    /// "the ROLLBACK TO command reverts the state of the database back to what it was just after the corresponding
    /// SAVEPOINT" (https://www.sqlite.org/lang_savepoint.html): SQLite keeps the old content of every page the
    /// write touches (the notes index's pages too, which it writes out at each savepoint) in a temporary file, a
    /// large part of what a batch of creates cost beyond the same rows inserted through the C API. Instead, a write
    /// that fails inside a batch fails the batch: every later write in it throws the same error, and so does the
    /// batch, which rolls back whole. No part of a failed write is ever committed.
    func localWrite<T>(_ body: () throws -> T) throws -> T {
        guard isInBatch else { return try db.transaction(.immediate, body) }
        if let failure = batchState?.failure { throw failure }
        do {
            return try body()
        } catch {
            batchState?.failure = error
            throw error
        }
    }

    /// Catches up with what other connections may have committed: the log's latest clock, and the device id (a
    /// restore through another connection gives the store a new one). Call it holding the write lock, which makes
    /// both final until commit.
    func observeStoredState() throws {
        if let stored = try db.int(sql: "SELECT max(hlc) FROM changes").flatMap({ HLC(packed: $0) }) {
            clock.observe(stored)
        }
        if let device = try db.text(sql: "SELECT value FROM meta WHERE key = 'device_id'") {
            deviceID = device
        }
    }

    /// When the store was created (ISO 8601).
    func createdAt() throws -> String {
        try db.text(sql: "SELECT value FROM meta WHERE key = 'created_at'") ?? ""
    }

    /// The number of changes in the log.
    func changeCount() throws -> Int {
        Int(try db.int(sql: "SELECT count(*) FROM changes") ?? 0)
    }

    /// What a file this store writes (an archive, an export) must never replace: the store's files and the attached
    /// content.
    func outputPolicy(force: Bool = false, replaceArchive: Bool = false) -> OutputTarget.Policy {
        OutputTarget.Policy(
            force: force, replaceArchive: replaceArchive, store: path,
            others: content.map { [(path: $0.path, what: "the attached content database")] } ?? [])
    }
}

@available(*, unavailable, message: "A store is confined to one thread at a time.")
extension StoreConnection: Sendable {}

/// What a running `batch` knows, from when it takes the write lock (and has observed the log's latest clock) to
/// when it commits or rolls back.
struct BatchState {
    /// The devices table as read in the batch's transaction (nil until read, and after a device was added): a
    /// batch of local writes reads it once, not once per write. It never outlives the transaction, so it never
    /// holds a number a rolled-back transaction gave out.
    var devices: DeviceTable?
    /// The newest wall time of a change made on this machine, as the batch has moved it (`noteClock`), and as it
    /// was stored when the batch read it.
    var ownWall: OwnWall?
    /// The error of a local write that failed inside the batch (see `localWrite`): the batch then rolls back
    /// whole, and throws it, even when its body caught it.
    var failure: (any Error)?
    /// The rows of annotations the batch created, not yet in `annotations` (see `deferCreate`).
    var deferredCreates: [RegisterRow] = []
}

extension StoreConnection {
    /// Whether `batch` holds the write lock, after it has observed the log's latest clock.
    var clockIsCurrent: Bool { batchState != nil }

    /// The devices table: the copy read in this batch's transaction when it names every device of `needed`, else
    /// read now (and kept for the rest of the batch).
    func deviceTable(naming needed: some Sequence<String> = [String]()) throws -> DeviceTable {
        if let cached = batchState?.devices, needed.allSatisfy(cached.contains) { return cached }
        let table = try DeviceTable(db)
        batchState?.devices = table
        return table
    }
}
