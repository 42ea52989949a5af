import Foundation

/// A person's annotations: the user database, its change log and its current tables, with the content it refers
/// to attached read-only when it is available. Safe to share across threads and tasks.
///
///     let store = try AnnotationStore.open(path: "user.db", access: .create)
///     try store.attachContent(path: "content.db")
///     let highlight = try store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.1"))
///
/// Writes go through one connection, one at a time; reads run on a small pool of reader connections, each seeing
/// one consistent snapshot, so they go on while a write or an import runs. Every error it throws is a
/// `MarginaliaError`.
public final class AnnotationStore: Sendable {
    /// What the caller will do with the store.
    public enum Access: Sendable {
        /// Read only: nothing is written; the store must exist.
        case readOnly
        /// Read and write; the store must exist.
        case readWrite
        /// Read and write; the store is created when absent.
        case create
    }

    /// The path the store was opened at (`:memory:` for a private in-memory store).
    public let path: String
    let engine: StoreEngine

    private init(path: String, engine: StoreEngine) {
        self.path = path
        self.engine = engine
    }

    /// Opens (or creates) the store at `path`.
    ///
    /// - Parameter configuration: busy timeout, readers, event polling and durability (see `Configuration`).
    /// - Parameter wallClock: milliseconds since 1970, for the hybrid logical clock; injectable for tests.
    /// - Throws: `MarginaliaError`: `.notFound` when the store is missing, `.invalidData` for a file that is not a
    ///   store, `.newerVersion` for one from a newer version (it is then left untouched).
    public static func open(path: String, access: Access, configuration: Configuration = Configuration(),
                            wallClock: @escaping @Sendable () -> Int64 = Timestamp.nowMilliseconds) throws
        -> AnnotationStore
    {
        try open(path: path, access: access, wallClock: wallClock, vfs: nil, configuration: configuration)
    }

    /// Opens the store through the SQLite VFS named `vfs` (nil: the default one), for tests that put a simulated
    /// disk under a store. Readers open through the same VFS.
    static func open(path: String, access: Access, wallClock: @escaping @Sendable () -> Int64, vfs: String?,
                     configuration: Configuration = Configuration()) throws -> AnnotationStore
    {
        do {
            let writer = try StoreConnection.open(path: path, access: StoreConnection.Access(access),
                                                  wallClock: wallClock, vfs: vfs, configuration: configuration)
            return AnnotationStore(path: path, engine: StoreEngine(writer: writer, wallClock: wallClock, vfs: vfs,
                                                                   configuration: configuration))
        } catch {
            throw MarginaliaError(error)
        }
    }

    /// Closes the store's connections once the work under way ends; every later call throws a `MarginaliaError`
    /// of category `.closed`, and event streams finish. Closing twice does nothing.
    public func close() throws {
        engine.close()
    }

    /// How the store was made readable when it was opened to read and was of an older schema: upgraded in place,
    /// or read from a copy upgraded in memory; nil when it was of the current schema (or opened to write, which
    /// upgrades it as a matter of course).
    public var schemaUpgrade: SchemaUpgrade? { engine.schemaUpgrade }

    /// The archives whose imports had been stopped midway (a crash, a kill, the store closed) and that opening the
    /// store finished, before anything else could read it; usually none.
    public var finishedImports: [String] { engine.unfinishedWork.finished }

    /// This store's device id: the `device` of every change it makes.
    public var deviceID: String { engine.deviceID }

    /// The local writes of this store, so far, made with the wall clock more than a day from its newest change
    /// (each also noted in the store, see `clockNotes()`).
    public var clockWarnings: [ClockWarning] { engine.clockWarnings }

    /// The attached content, if any.
    public var content: ContentInfo? { engine.content }

    /// Called every so many items by long operations (export, import, anchor checks) on the thread doing the work,
    /// to show progress; returning `.stop` cancels the work.
    public var progressHandler: ProgressHandler? {
        get { engine.progressHandler }
        set { engine.progressHandler = newValue }
    }

    /// Runs many writes as one transaction: all of them are committed together when `body` returns, none when
    /// it throws. Each write inside still records its own change. Other writers wait until it ends. A write that
    /// fails once it has begun writing (an SQLite error) fails the whole batch, even when `body` catches its error:
    /// the later writes and the batch throw it too, and nothing is committed. A write refused before it writes
    /// (an invalid anchor, a change that changes nothing) leaves the batch going.
    ///
    /// The annotations a batch creates are written to the current tables together, a thousand at most at a time,
    /// instead of one by one: every read inside the batch sees them all the same. An error writing them (the disk
    /// full, say) is thrown by the next call that reads or writes the store, or by the batch, and fails the batch.
    ///
    ///     try store.batch {
    ///         for request in requests { try store.createAnnotation(.highlight, at: request) }
    ///     }
    @discardableResult
    public func batch<T>(_ body: () throws -> T) throws -> T {
        try engine.write { connection in try connection.batch(body) }
    }

    /// When the store was created (ISO 8601).
    package func createdAt() throws -> String {
        try engine.read { try $0.createdAt() }
    }

    /// The number of changes in the log.
    public func changeCount() throws -> Int {
        try engine.read { try $0.changeCount() }
    }

    /// The connection that writes, for tests and the library's own checks; only while nothing else uses the store.
    var writer: StoreConnection {
        get throws { try engine.write { $0 } }
    }

    /// The writer's database, for tests.
    var db: any Database {
        get throws { try writer.db }
    }
}

extension StoreConnection.Access {
    init(_ access: AnnotationStore.Access) {
        switch access {
        case .readOnly: self = .readOnly
        case .readWrite: self = .readWrite
        case .create: self = .create
        }
    }
}
