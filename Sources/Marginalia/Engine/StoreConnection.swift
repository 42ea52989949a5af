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
    var verifier: Verifier { Verifier(projection: projection) }
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
    /// This store's device id: the `device` of every change it makes. Inside a write, the transaction's (which a
    /// renewal changes at once); outside, the one the last committed write left.
    var deviceID: String { transaction?.deviceID ?? committedDeviceID }
    /// The hybrid logical clock: inside a write, the transaction's; outside, as the last committed write left it.
    var clock: HybridLogicalClock { transaction?.clock ?? committedClock }
    private var committedDeviceID: String
    private var committedClock: HybridLogicalClock
    /// The local writes of this session made with the wall clock far from the store's newest change (each also
    /// noted in the store); the command-line tool prints them on stderr.
    private(set) var clockWarnings: [ClockWarning] = []
    /// The attached content, if any.
    var content: ContentInfo?
    /// How the store, of an older schema, was made readable when this connection opened it to read.
    var schemaUpgrade: SchemaUpgrade?
    /// What opening the store finished, or gave up, of the work adapters left (an interrupted import).
    var unfinishedWork = UnfinishedWork.Outcome()
    /// Called every so many items by long operations (export, import, anchor checks), to show progress.
    var progressHandler: ProgressHandler?
    /// Whether a merge may delete most of the live annotations (`DeletionBrake`); from the configuration.
    var allowsMassDeletion = false

    /// Reports progress every `every` items (and at item 0 never); there the work stops if its task was cancelled
    /// or the handler asks it to.
    /// - Throws: `CancellationError`, which rolls back the write the work is part of.
    func reportProgress(_ task: String, done: Int, total: Int? = nil, every: Int = 1000) throws {
        try StoreTransaction.reportProgress(to: progressHandler, task, done: done, total: total, every: every)
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
            try store.releaseDueQuarantine()
            let writer = StoreWriter(underlyingConnection: store)
            for work in UnfinishedWork.registered { store.unfinishedWork.absorb(work.finish(writer)) }
        } else if !alreadyOpen, path != ":memory:", try UnfinishedWork.registered.contains(where: {
            try $0.isLeft(StoreReader(underlyingConnection: store))
        }) {
            // Like a migration, finishing what an adapter left (an interrupted import) is the one write a read may
            // make: the store is then read whole, as it will be from now on.
            let writer = try open(path: path, access: .readWrite, wallClock: wallClock, vfs: vfs,
                                  configuration: configuration)
            store.unfinishedWork = writer.unfinishedWork
        }
        return store
    }

    /// Wraps an opened, migrated user database.
    init(database: any Database, path: String, wallClock: @escaping @Sendable () -> Int64,
         progressHandler: ProgressHandler? = nil) throws {
        db = WriteBehindDatabase(database)
        self.progressHandler = progressHandler
        self.path = path
        guard let device = try db.text(sql: "SELECT value FROM meta WHERE key = 'device_id'") else {
            throw StoreError.notAStore(path: path, reason: "it has no device id")
        }
        committedDeviceID = device
        let latest = try db.int(sql: "SELECT max(hlc) FROM changes").flatMap { HLC(packed: $0) } ?? .zero
        committedClock = HybridLogicalClock(latest: latest, wallClock: wallClock)
    }

    /// The transaction a write is running (`write`); nil outside one.
    private(set) var transaction: StoreTransaction?

    /// Runs `body` in a write transaction, with the value that exists for that transaction only
    /// (`StoreTransaction`): all of its writes are committed together when `body` returns, none when it throws.
    /// Inside a write, `body` runs in that write's transaction.
    ///
    /// After the commit the connection takes what the transaction settled: the device id (a renewal takes effect
    /// for the store only then), the clock, the clock warnings. A transaction that rolls back leaves the
    /// connection as it was.
    ///
    ///     try store.write { transaction in
    ///         for request in requests { try store.createAnnotation(.highlight, at: request) }
    ///     }
    func write<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        if let transaction { return try body(transaction) }
        var finished: StoreTransaction?
        let result = try db.transaction(.immediate) {
            let transaction = try StoreTransaction(db: db, clock: committedClock, progressHandler: progressHandler,
                                                   allowsMassDeletion: allowsMassDeletion)
            self.transaction = transaction
            defer {
                self.transaction = nil
                db.pending = nil
            }
            let result = try body(transaction)
            try transaction.finish()
            finished = transaction
            return result
        }
        if let finished {
            committedDeviceID = finished.deviceID
            committedClock = finished.clock
            clockWarnings += finished.clockWarnings
        }
        return result
    }

    /// The write transaction under way: what a part run inside `write` records and merges through.
    /// - Throws: `StoreError.invalidChange` outside a write (a defect of the caller).
    var currentTransaction: StoreTransaction {
        get throws {
            guard let transaction else {
                throw StoreError.invalidChange(reason: "a write was made outside a write transaction")
            }
            return transaction
        }
    }

    /// Runs `body` with the merger of a write (`write`): the one under way, or one of its own.
    func merging<T>(_ body: (Merger) throws -> T) throws -> T {
        try write { try body(Merger($0)) }
    }

    /// Runs many writes as one transaction (`write`). Each write inside still records its own change. A local
    /// write that fails inside fails the whole batch: nothing is committed and the batch throws its error, even
    /// when `body` caught it (see `StoreTransaction.localWrite`). The rows of the annotations it creates are
    /// written together (`StoreTransaction.deferCreate`), at the latest before it commits.
    func batch<T>(_ body: () throws -> T) throws -> T {
        try write { _ in try body() }
    }

    /// Runs one local write (an annotation made, edited, deleted or brought back): in a transaction of its own,
    /// or, inside `write`, straight in its transaction, which it fails whole if it fails.
    func localWrite<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        try write { transaction in try transaction.localWrite { try body(transaction) } }
    }

    /// Catches up with what other connections may have committed: the device id (a restore through another
    /// connection gives the store a new one). The engine calls it as each outermost read or write begins, so that
    /// outside a transaction the device id is the store's as that read or write found it.
    func refreshDeviceID() throws {
        guard transaction == nil else { return }
        if let device = try db.text(sql: "SELECT value FROM meta WHERE key = 'device_id'") {
            committedDeviceID = device
        }
    }

    /// Merges the quarantined changes that have become plausible (dated no more than the allowed drift ahead of
    /// the wall clock), as opening a store for writing does. Takes the write lock only when there is one.
    func releaseDueQuarantine() throws {
        let latest = clock.wallMilliseconds + clock.maxDrift
        guard try Quarantine(db: db).hasDue(latestAllowed: latest) else { return }
        _ = try write { try Merger($0).releaseQuarantine(latestAllowed: latest) }
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

extension StoreConnection {
    /// The devices table: the transaction's copy inside a write, else read now.
    func deviceTable(naming needed: some Sequence<String> = [String]()) throws -> DeviceTable {
        if let transaction { return try transaction.deviceTable(naming: needed) }
        return try DeviceTable(db)
    }
}
