import Foundation

/// Hands every commit to the store's event streams, in order, each once.
///
/// Each stream keeps the cursor it has been told up to; after a commit (this process's, or another's that the
/// watcher notices through `PRAGMA data_version`), each stream is told what the log holds after its cursor. A
/// refresh that fails announces nothing and moves nothing, so the next one announces it instead.
///
/// The watcher thread runs only while a stream is alive: it starts with the first one and ends after the last.
/// Its first look at the file, and its first look after a stream joins, reads the log whether or not
/// `data_version` moved, so a commit made between a stream's cursor and the watcher's first reading is announced.
final class StoreObserver: @unchecked Sendable {
    /// How long the watcher sleeps between two looks at the file, in microseconds.
    private let pollMicroseconds: UInt32

    private struct Subscriber {
        let continuation: AsyncStream<StoreEvent>.Continuation
        /// The cursor after the last commit this stream was told of.
        var cursor: ChangeCursor
    }

    private let lock = NSLock()
    private var subscribers: [Int: Subscriber] = [:]
    private var nextID = 0
    private var finished = false
    private var watching = false
    /// Set when a stream joined, or a refresh failed: the watcher reads the log at its next look.
    private var refreshWanted = false

    init(pollMicroseconds: UInt32) {
        self.pollMicroseconds = pollMicroseconds
    }

    /// A new stream of events for every commit after `cursor`; starts the watcher when none runs.
    func subscribe(after cursor: ChangeCursor, engine: StoreEngine) -> AsyncStream<StoreEvent> {
        let (stream, continuation) = AsyncStream<StoreEvent>.makeStream()
        let startWatcher: Bool = lock.withLock {
            guard !finished else {
                continuation.finish()
                return false
            }
            let id = nextID
            nextID += 1
            subscribers[id] = Subscriber(continuation: continuation, cursor: cursor)
            continuation.onTermination = { [weak self] _ in
                self?.lock.withLock { _ = self?.subscribers.removeValue(forKey: id) }
            }
            refreshWanted = true
            defer { watching = true }
            return !watching
        }
        if startWatcher { watch(engine) }
        return stream
    }

    /// Tells each stream of the changes committed after its cursor, read through `connection`.
    func refresh(using connection: StoreConnection) {
        lock.withLock {
            guard !subscribers.isEmpty else { return }
            do {
                // The log's cursor once; each stream's event from its own cursor up to it (one query for streams
                // that stand at the same cursor).
                let current = try connection.log.cursor()
                var events: [ChangeCursor: StoreEvent?] = [:]
                for (id, subscriber) in subscribers {
                    let event: StoreEvent?
                    if let known = events[subscriber.cursor] {
                        event = known
                    } else {
                        event = try Self.event(from: subscriber.cursor, to: current, in: connection)
                        events[subscriber.cursor] = event
                    }
                    guard let event else { continue }
                    subscribers[id]?.cursor = event.cursor
                    subscriber.continuation.yield(event)
                }
            } catch {
                // What was not announced keeps its cursor: the next refresh reads these changes again.
                refreshWanted = true
            }
        }
    }

    /// Ends every stream; the watcher stops.
    func finish() {
        let ending: [AsyncStream<StoreEvent>.Continuation] = lock.withLock {
            finished = true
            defer { subscribers.removeAll() }
            return subscribers.values.map(\.continuation)
        }
        for continuation in ending { continuation.finish() }
    }

    /// How many streams are alive.
    var streamCount: Int { lock.withLock { subscribers.count } }

    /// Whether a watcher thread is running.
    var isWatching: Bool { lock.withLock { watching } }

    /// Whether the watcher goes on: some stream is alive. When none is, the watcher is over (under the same lock
    /// that `subscribe` checks it with, so a stream that joins now starts a new one).
    private func keepWatching() -> Bool {
        lock.withLock {
            guard !finished, !subscribers.isEmpty else {
                watching = false
                return false
            }
            return true
        }
    }

    /// Whether a refresh was asked for since the last look; clears the request.
    private func takeRefreshWanted() -> Bool {
        lock.withLock {
            defer { refreshWanted = false }
            return refreshWanted
        }
    }

    /// The event for the changes after `cursor` up to `current`, or nil when there are none.
    private static func event(from cursor: ChangeCursor, to current: ChangeCursor,
                              in connection: StoreConnection) throws -> StoreEvent? {
        guard current.log == cursor.log else {
            return StoreEvent(cursor: current, annotationIDs: [], positionDocuments: [], namedDevices: [],
                              logReplaced: true)
        }
        guard current.sequence > cursor.sequence else { return nil }
        var annotations: Set<String> = []
        var documents: Set<String> = []
        var devices: Set<String> = []
        try connection.db.forEachRow(
            sql: "SELECT entity, entity_id FROM changes WHERE seq > ? AND seq <= ?",
            arguments: [cursor.sequence, current.sequence]
        ) { row in
            switch EntityKind(rawValue: try row.string(0)) {
            case .position: documents.insert(try row.string(1))
            case .device: devices.insert(try row.string(1))
            case .annotation, nil: annotations.insert(try row.string(1))
            }
        }
        return StoreEvent(cursor: current, annotationIDs: annotations, positionDocuments: documents,
                          namedDevices: devices, logReplaced: false)
    }

    /// Watches the file for commits by other connections and processes, while a stream is alive.
    ///
    /// "The integer values returned by two invocations of "PRAGMA data_version" from the same connection will be
    /// different if changes were committed to the database by any other connection in the interim."
    /// https://www.sqlite.org/pragma.html#pragma_data_version
    /// The version is read before the log, so a commit after that reading moves it for the next look.
    private func watch(_ engine: StoreEngine) {
        let interval = pollMicroseconds
        let thread = Thread { [weak self, weak engine] in
            var watcher: SQLiteDatabase?
            var version: Int64?
            while let observer = self, let engine, observer.keepWatching() {
                if watcher == nil { watcher = engine.openWatcher() }
                let now = watcher.flatMap { try? $0.int(sql: "PRAGMA data_version") }
                if observer.takeRefreshWanted() || now != version {
                    try? engine.read { observer.refresh(using: $0) }
                    version = now
                }
                usleep(interval)
            }
        }
        thread.name = "marginalia store watcher"
        thread.start()
    }
}

extension AnnotationStore {
    /// Every commit from now on, as it happens: this store's own writes, merges, imports and restores, and commits
    /// that another process (the CLI, a sync tool) makes to the same file, within a second.
    ///
    ///     for await event in store.events() {
    ///         reload(event.annotationIDs)
    ///     }
    ///
    /// No event is missed: each stream buffers what its consumer has not read yet, and a consumer that fell behind
    /// can ask `changes(after:)` from the last cursor it handled. The stream finishes when the store is closed.
    public func events() -> AsyncStream<StoreEvent> {
        let cursor: ChangeCursor
        do {
            cursor = try engine.read { try $0.log.cursor() }
        } catch {
            // A closed store has no events to come.
            let (stream, continuation) = AsyncStream<StoreEvent>.makeStream()
            continuation.finish()
            return stream
        }
        return engine.observer.subscribe(after: cursor, engine: engine)
    }
}
