import Foundation

/// A commit the store saw: its own write, a merge, an import, a restore, or another process's write to the file.
public struct StoreEvent: Hashable, Sendable {
    /// The cursor after the commit: `changes(after:)` from the previous event's cursor gives exactly its changes.
    public var cursor: ChangeCursor
    /// The annotations the commit touched.
    public var annotationIDs: Set<String>
    /// The documents whose reading position it set.
    public var positionDocuments: Set<String>
    /// The log was replaced (a restore): everything may have changed, and older cursors read from the start.
    public var logReplaced: Bool
}

/// Hands every commit to the store's event streams, in order, each once.
///
/// It keeps the cursor of the last commit it announced; after a commit (this process's, or another's that the
/// watcher notices through `PRAGMA data_version`), it reads the log after that cursor and announces what it finds.
/// A refresh that fails announces nothing and moves nothing, so the next one announces it instead.
final class StoreObserver: @unchecked Sendable {
    /// How often the watcher asks whether another connection committed.
    static let pollInterval: useconds_t = 200_000

    private let lock = NSLock()
    private var continuations: [Int: AsyncStream<StoreEvent>.Continuation] = [:]
    private var nextID = 0
    private var last: ChangeCursor?
    private var finished = false
    private var watching = false

    /// A new stream of events for every commit after `cursor`; starts the watcher the first time.
    func subscribe(after cursor: ChangeCursor, engine: StoreEngine) -> AsyncStream<StoreEvent> {
        let (stream, continuation) = AsyncStream<StoreEvent>.makeStream()
        let startWatcher: Bool = lock.withLock {
            guard !finished else {
                continuation.finish()
                return false
            }
            let id = nextID
            nextID += 1
            continuations[id] = continuation
            continuation.onTermination = { [weak self] _ in
                self?.lock.withLock { self?.continuations[id] = nil }
            }
            if last == nil { last = cursor }
            defer { watching = true }
            return !watching
        }
        if startWatcher { watch(engine) }
        return stream
    }

    /// Announces the changes committed since the last announcement, read through `connection`.
    func refresh(using connection: StoreConnection) {
        lock.withLock {
            guard !continuations.isEmpty, let last else { return }
            do {
                guard let event = try Self.event(after: last, in: connection) else { return }
                self.last = event.cursor
                for continuation in continuations.values { continuation.yield(event) }
            } catch {
                // Nothing was announced and the cursor stays: the next refresh reads these changes again.
                return
            }
        }
    }

    /// Ends every stream; the watcher stops.
    func finish() {
        let ending: [AsyncStream<StoreEvent>.Continuation] = lock.withLock {
            finished = true
            defer { continuations.removeAll() }
            return Array(continuations.values)
        }
        for continuation in ending { continuation.finish() }
    }

    private var isFinished: Bool { lock.withLock { finished } }

    /// The event for the changes after `cursor`, or nil when there are none.
    private static func event(after cursor: ChangeCursor, in connection: StoreConnection) throws -> StoreEvent? {
        let current = try connection.cursor()
        guard current.log == cursor.log else {
            return StoreEvent(cursor: current, annotationIDs: [], positionDocuments: [], logReplaced: true)
        }
        guard current.sequence > cursor.sequence else { return nil }
        var annotations: Set<String> = []
        var documents: Set<String> = []
        try connection.db.forEachRow(
            sql: "SELECT entity, entity_id FROM changes WHERE seq > ? AND seq <= ?",
            arguments: [cursor.sequence, current.sequence]
        ) { row in
            if try row.string(0) == EntityKind.position.rawValue {
                documents.insert(try row.string(1))
            } else {
                annotations.insert(try row.string(1))
            }
        }
        return StoreEvent(cursor: current, annotationIDs: annotations, positionDocuments: documents,
                          logReplaced: false)
    }

    /// Watches the file for commits by other connections and processes.
    ///
    /// "The integer values returned by two invocations of "PRAGMA data_version" from the same connection will be
    /// different if changes were committed to the database by any other connection in the interim."
    /// https://www.sqlite.org/pragma.html#pragma_data_version
    private func watch(_ engine: StoreEngine) {
        let thread = Thread { [weak self, weak engine] in
            var watcher: SQLiteDatabase?
            var version: Int64?
            while let observer = self, !observer.isFinished, let engine {
                if watcher == nil { watcher = engine.openWatcher() }
                if let watcher, let now = try? watcher.int(sql: "PRAGMA data_version"), now != version {
                    if version != nil { try? engine.read { observer.refresh(using: $0) } }
                    version = now
                }
                usleep(Self.pollInterval)
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
            cursor = try engine.read { try $0.cursor() }
        } catch {
            // A closed store has no events to come.
            let (stream, continuation) = AsyncStream<StoreEvent>.makeStream()
            continuation.finish()
            return stream
        }
        return engine.observer.subscribe(after: cursor, engine: engine)
    }
}
