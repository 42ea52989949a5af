import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The connections behind an `AnnotationStore`: one writer, used by one thread at a time, and a pool of readers.
///
/// Every use goes through `write` or `read`, which check that the store is open, hand the caller a connection for
/// the length of the call, and turn every error into a `MarginaliaError`. A thread that holds the writer (inside
/// `batch`) reads through it too, so that it sees its own uncommitted writes.
final class StoreEngine: @unchecked Sendable {
    private let writerLock = NSRecursiveLock()
    /// Guarded by `writerLock`; nil once closed.
    private var writer: StoreConnection?
    /// How deep the current owner of `writerLock` has entered it. Guarded by `writerLock`.
    private var writerDepth = 0

    /// Guards everything below it.
    private let state = NSLock()
    private var writerOwner: pthread_t?
    /// Threads waiting for the writer now.
    private var waitingWriters = 0
    private var closed = false
    private var idle: [StoreConnection] = []
    /// The content every connection should have attached, and a count of how often it changed.
    private var contentPath: String?
    private var contentGeneration = 0
    private var readerGeneration: [ObjectIdentifier: Int] = [:]
    private var handler: ProgressHandler?
    private var cachedDeviceID: String
    private var cachedContent: ContentInfo?
    private var cachedClockWarnings: [ClockWarning] = []

    /// The store's file, or nil for one that readers cannot share (in memory).
    private let sharedPath: String?
    private let wallClock: @Sendable () -> Int64
    /// The wall clock the store's connections stamp changes with.
    var wallClockSource: @Sendable () -> Int64 { wallClock }
    /// The SQLite VFS every connection opens through (nil: the default one).
    private let vfs: String?
    let observer: StoreObserver
    /// How the connections behave: busy timeout, idle readers kept, event polling, durability.
    let configuration: AnnotationStore.Configuration

    init(writer: StoreConnection, wallClock: @escaping @Sendable () -> Int64, vfs: String? = nil,
         configuration: AnnotationStore.Configuration = AnnotationStore.Configuration()) {
        self.writer = writer
        self.wallClock = wallClock
        self.vfs = vfs
        self.configuration = configuration
        schemaUpgrade = writer.schemaUpgrade
        unfinishedWork = writer.unfinishedWork
        sharedPath = writer.path == ":memory:" ? nil : writer.path
        cachedDeviceID = writer.deviceID
        observer = StoreObserver(pollMicroseconds: configuration.eventPollMicroseconds)
    }

    deinit {
        // Readers first: the last connection to close checkpoints the write-ahead log into the file and removes it,
        // and only the writer can (readers open the file read-only).
        idle.removeAll()
        writer = nil
    }

    // MARK: - Writing

    /// Runs `body` with the writer, after any other write has ended; errors become `MarginaliaError`s.
    /// - Parameter progress: this call's own progress handler, in place of the store-wide one.
    func write<T>(progress: ProgressHandler? = nil, _ body: (StoreConnection) throws -> T) throws -> T {
        state.withLock { waitingWriters += 1 }
        writerLock.lock()
        state.withLock { waitingWriters -= 1 }
        writerDepth += 1
        if writerDepth == 1 { state.withLock { writerOwner = pthread_self() } }
        defer {
            writerDepth -= 1
            if writerDepth == 0 { state.withLock { writerOwner = nil } }
            writerLock.unlock()
        }
        guard let writer else { throw MarginaliaError.closed }
        let outermost = writerDepth == 1
        if outermost { writer.progressHandler = progress ?? progressHandler }
        defer { if outermost { writer.progressHandler = nil } }
        do {
            // Another connection may have changed the device id since (a restore): each outermost use reads it.
            if outermost { try writer.refreshDeviceID() }
            let result = try body(writer)
            if outermost {
                state.withLock {
                    cachedDeviceID = writer.deviceID
                    cachedContent = writer.content
                    cachedClockWarnings = writer.clockWarnings
                }
                // The write has committed: tell the observers, from the connection that made it.
                observer.refresh(using: writer)
            }
            return result
        } catch {
            throw MarginaliaError(error)
        }
    }

    /// Lets the threads waiting for the writer now have it first: what a long write made of steps calls between
    /// two of them. A lock lets the thread that released it take it again at once, ahead of the threads it woke,
    /// so without this the steps would follow each other and the app's writes would wait for them all.
    /// Waits `limit` at most.
    func yieldToWaitingWriters(limit: Duration = .seconds(1)) {
        let deadline = ContinuousClock.now + limit
        while state.withLock({ waitingWriters > 0 }) && ContinuousClock.now < deadline {
            usleep(100)
        }
    }

    // MARK: - Reading

    /// Runs `body` with a reader connection inside one read transaction (one snapshot); errors become
    /// `MarginaliaError`s.
    /// - Parameter progress: this call's own progress handler, in place of the store-wide one.
    func read<T>(progress: ProgressHandler? = nil, _ body: (StoreConnection) throws -> T) throws -> T {
        guard sharedPath != nil, !currentThreadWrites else { return try write(progress: progress, body) }
        let reader = try checkOutReader()
        defer { checkIn(reader) }
        do {
            reader.progressHandler = progress ?? progressHandler
            defer { reader.progressHandler = nil }
            return try reader.db.transaction(.deferred) {
                try reader.refreshDeviceID()
                return try body(reader)
            }
        } catch {
            throw MarginaliaError(error)
        }
    }

    /// Whether this thread holds the writer (inside a `batch`, or a write's body).
    var currentThreadWrites: Bool {
        state.withLock { writerOwner.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    private func checkOutReader() throws -> StoreConnection {
        let (reader, path, generation): (StoreConnection?, String?, Int) = try state.withLock {
            guard !closed else { throw MarginaliaError.closed }
            return (idle.popLast(), contentPath, contentGeneration)
        }
        let connection: StoreConnection
        do {
            connection = try reader ?? StoreConnection.open(path: sharedPath ?? "", access: .readOnly,
                                                            wallClock: wallClock, vfs: vfs, alreadyOpen: true,
                                                            configuration: configuration)
        } catch {
            throw MarginaliaError(error)
        }
        let attached = state.withLock { readerGeneration[ObjectIdentifier(connection)] }
        if attached != generation {
            do {
                if let path { try connection.attachContent(path: path) } else { try connection.detachContent() }
            } catch {
                // The writer attached this file a moment ago; a reader that cannot is without content, like the
                // writer would be.
                try? connection.detachContent()
            }
            state.withLock { readerGeneration[ObjectIdentifier(connection)] = generation }
        }
        return connection
    }

    private func checkIn(_ reader: StoreConnection) {
        state.withLock {
            if !closed && idle.count < configuration.readers {
                idle.append(reader)
            } else {
                readerGeneration[ObjectIdentifier(reader)] = nil
            }
        }
    }

    // MARK: - Content

    /// Attaches (or, with nil, detaches) content on the writer, and on every reader before its next read.
    func setContent(_ path: String?) throws {
        try write { writer in
            defer {
                state.withLock {
                    contentPath = writer.content?.path
                    contentGeneration += 1
                    cachedContent = writer.content
                }
            }
            if let path { try writer.attachContent(path: path) } else { try writer.detachContent() }
        }
    }

    // MARK: - State

    var deviceID: String { state.withLock { cachedDeviceID } }
    /// How the store, of an older schema, was made readable when it was opened to read.
    let schemaUpgrade: SchemaUpgrade?
    /// The interrupted imports that opening the store finished or abandoned.
    let unfinishedWork: UnfinishedWork.Outcome
    var content: ContentInfo? { state.withLock { cachedContent } }
    var clockWarnings: [ClockWarning] { state.withLock { cachedClockWarnings } }

    var progressHandler: ProgressHandler? {
        get { state.withLock { handler } }
        set { state.withLock { handler = newValue } }
    }

    /// Waits for the write under way, then drops every connection; later calls throw `.closed`.
    func close() {
        writerLock.lock()
        defer { writerLock.unlock() }
        // Readers first, for the reason `deinit` gives.
        state.withLock {
            closed = true
            idle.removeAll()
            readerGeneration.removeAll()
        }
        writer = nil
        observer.finish()
    }

    /// Opens a private read-only connection to the store's file, for watching it; nil for an in-memory store.
    func openWatcher() -> SQLiteDatabase? {
        guard let sharedPath else { return nil }
        return try? SQLiteDatabase(path: SQLiteDatabase.fileURI(path: sharedPath, readOnly: true), mode: .readOnly)
    }
}
