/// What an adapter (the archive, sync, interop, the report) is handed to use a store, as GRDB hands a
/// `DatabaseReader` or a `DatabaseWriter`: a `StoreReader` for a read, a `StoreWriter` for work that writes. Neither
/// lets it change the connection's state (its device id, clock, content, progress handler) or open a transaction
/// but through `StoreWriter.write`, whose `StoreTransaction` lives for that transaction only. The engine hands them
/// out (`StoreEngine.reading`, `StoreEngine.writing`); an adapter that needs a store of its own (a scratch store, the
/// store a restore replaces) opens one through them.
///
/// The connection underneath is the engine's: no adapter names `StoreConnection` or reaches `underlyingConnection`
/// (`DependencyDirectionTests`).
protocol StoreAccess {
    /// The connection this access reads or writes through; for `Engine/` only.
    var underlyingConnection: StoreConnection { get }
}

extension StoreAccess {
    /// Every statement runs through it.
    var db: WriteBehindDatabase { underlyingConnection.db }
    /// The path the store was opened at (`:memory:` for a private in-memory store).
    var path: String { underlyingConnection.path }
    /// This store's device id: inside a write, the transaction's; outside, the store's as this use began.
    var deviceID: String { underlyingConnection.deviceID }
    /// The hybrid logical clock, as it stands (read only).
    var clock: HybridLogicalClock { underlyingConnection.clock }
    /// The attached content, if any.
    var content: ContentInfo? { underlyingConnection.content }
    /// Whether a merge may delete most of the live annotations (`DeletionBrake`).
    var allowsMassDeletion: Bool { underlyingConnection.allowsMassDeletion }

    /// The change log.
    var log: ChangeLog { underlyingConnection.log }
    /// The current tables.
    var projection: Projection { underlyingConnection.projection }
    /// The store checked whole.
    var verifier: Verifier { underlyingConnection.verifier }
    /// The changes held back until their time is plausible.
    var quarantine: Quarantine { underlyingConnection.quarantine }
    /// What each change arrived by.
    var receipts: Receipts { underlyingConnection.receipts }
    /// The documents and passages of the attached content.
    var attached: AttachedContent { underlyingConnection.attached }
    /// The anchors of the annotations against the attached content.
    var anchoring: Anchoring { underlyingConnection.anchoring }
    /// Ids typed short and printed short.
    var ids: ShortIDs { underlyingConnection.ids }

    /// Reports progress every `every` items; there the work stops if its task was cancelled or the handler asks it
    /// to (`StoreConnection.reportProgress`).
    func reportProgress(_ task: String, done: Int, total: Int? = nil, every: Int = 1000) throws {
        try underlyingConnection.reportProgress(task, done: done, total: total, every: every)
    }

    /// The attached content; throws when there is none.
    func requireContent() throws -> ContentInfo { try underlyingConnection.requireContent() }
    /// The annotations `filter` selects.
    func annotations(matching filter: AnnotationFilter = AnnotationFilter()) throws -> [Annotation] {
        try underlyingConnection.annotations(matching: filter)
    }
    /// How many annotations are live and how many deleted.
    func annotationCounts() throws -> (live: Int, deleted: Int) { try underlyingConnection.annotationCounts() }
    /// The reading position in `document`, if one was set.
    func position(document: String) throws -> ReadingPosition? {
        try underlyingConnection.position(document: document)
    }
    /// Every reading position.
    func positions() throws -> [ReadingPosition] { try underlyingConnection.positions() }
    /// The number of changes in the log.
    func changeCount() throws -> Int { try underlyingConnection.changeCount() }
    /// When the store was created (ISO 8601).
    func createdAt() throws -> String { try underlyingConnection.createdAt() }
    /// What a file this store writes must never replace (`StoreConnection.outputPolicy`).
    func outputPolicy(force: Bool = false, replaceArchive: Bool = false) -> OutputTarget.Policy {
        underlyingConnection.outputPolicy(force: force, replaceArchive: replaceArchive)
    }
    /// The devices table: the transaction's copy inside a write, else read now.
    func deviceTable(naming needed: some Sequence<String> = [String]()) throws -> DeviceTable {
        try underlyingConnection.deviceTable(naming: needed)
    }
}

/// A store to read, for the length of one read (see `StoreAccess`).
struct StoreReader: StoreAccess {
    let underlyingConnection: StoreConnection

    /// Opens the store at `path` to read, outside any engine: a store other than the one in use (the one a restore
    /// replaces, a scratch copy).
    static func open(path: String) throws -> StoreReader {
        StoreReader(underlyingConnection: try StoreConnection.open(path: path, access: .readOnly))
    }
}

/// A store to write, for the length of one use of the writer (see `StoreAccess`): its writes run in transactions it
/// opens through `write`.
struct StoreWriter: StoreAccess {
    let underlyingConnection: StoreConnection

    /// Opens (or creates, with `create`) the store at `path` to write, outside any engine: a scratch store an
    /// adapter fills (a restore's, a verification's).
    static func open(path: String, create: Bool) throws -> StoreWriter {
        StoreWriter(underlyingConnection: try StoreConnection.open(path: path, access: create ? .create : .readWrite))
    }

    /// The same store, to read.
    var reader: StoreReader { StoreReader(underlyingConnection: underlyingConnection) }

    /// Runs `body` in a write transaction (`StoreConnection.write`): all of its writes are committed together when
    /// it returns, none when it throws.
    func write<T>(_ body: (StoreTransaction) throws -> T) throws -> T { try underlyingConnection.write(body) }

    /// Runs `body` with the merger of a write: the one under way, or one of its own.
    func merging<T>(_ body: (Merger) throws -> T) throws -> T { try underlyingConnection.merging(body) }

    /// The write transaction under way; throws outside one.
    var currentTransaction: StoreTransaction { get throws { try underlyingConnection.currentTransaction } }
}

extension StoreWriter {
    /// A writer over `database`, a copy of a store made already and migrated (a dry run's private copy).
    init(copy database: any Database, path: String, wallClock: @escaping @Sendable () -> Int64,
         progressHandler: ProgressHandler?) throws {
        underlyingConnection = try StoreConnection(database: database, path: path, wallClock: wallClock,
                                                   progressHandler: progressHandler)
    }
}

extension StoreEngine {
    /// Runs `body` with a reader inside one read transaction (`read`), handed to an adapter as a `StoreReader`.
    func reading<T>(progress: ProgressHandler? = nil, _ body: (StoreReader) throws -> T) throws -> T {
        try read(progress: progress) { try body(StoreReader(underlyingConnection: $0)) }
    }

    /// Runs `body` with the writer (`write`), handed to an adapter as a `StoreWriter`.
    func writing<T>(progress: ProgressHandler? = nil, _ body: (StoreWriter) throws -> T) throws -> T {
        try write(progress: progress) { try body(StoreWriter(underlyingConnection: $0)) }
    }
}
