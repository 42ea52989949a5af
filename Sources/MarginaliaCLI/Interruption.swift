import Foundation
import Marginalia

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT and SIGTERM: remove every temporary file and scratch directory, say so in one line, exit 130 or 143.
///
/// The signals are blocked in the main thread before any other thread exists, so every thread inherits the block
/// ("A child created via fork(2) inherits a copy of its parent's signal mask"; a new thread inherits its
/// creator's, https://man7.org/linux/man-pages/man7/signal.7.html), and one thread takes them with sigwait(3).
/// Cleaning up then runs as ordinary code, not in a signal handler, while the interrupted work stays where it
/// was: its temporary files are removed before the process exits, so no rename can follow.
enum Interruption {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var createdStore: String?
    /// The store a writing command opened, and what it held committed then.
    nonisolated(unsafe) private static var watched: (path: String, before: CommittedState)?

    /// Remembers what the store at `path` held committed when a writing command opened it, so that an interruption
    /// says truthfully what it holds now.
    static func watch(store path: String) {
        guard let before = try? CommittedState.read(path: path) else { return }
        lock.lock()
        defer { lock.unlock() }
        if watched == nil { watched = (path, before) }
    }

    /// Blocks SIGINT and SIGTERM and starts the thread that handles them. Call first thing in `main`.
    static func install() {
        var signals = signalSet()
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        let thread = Thread {
            var set = signalSet()
            while true {
                var received: Int32 = 0
                guard sigwait(&set, &received) == 0 else { continue }
                interrupted(by: received)
            }
        }
        thread.start()
    }

    /// A store this run created, removed too when interrupted (nil once the command is done with it).
    static func removeOnInterrupt(_ store: String?) {
        lock.lock()
        defer { lock.unlock() }
        createdStore = store
    }

    /// Waits for the exit an interruption is about to make, so that work failing because its files were just
    /// removed does not report its own error or status first.
    static func waitIfInterrupted() {
        guard TemporaryFile.isInterrupting else { return }
        while true { pause() }
    }

    private static func interrupted(by signal: Int32) {
        TemporaryFile.removeAllRegistered()
        lock.lock()
        let created = createdStore
        if let store = created {
            for suffix in ["", "-wal", "-shm"] { unlink(store + suffix) }
        }
        let store = watched
        lock.unlock()
        let name = signal == SIGINT ? "SIGINT" : "SIGTERM"
        let state = created == nil ? store.map { words(for: $0.path, before: $0.before) } : nil
        let line = "Error: interrupted by \(name); \(state ?? "nothing was changed")\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
        // _exit: no atexit handlers or buffered-output flushing while the main thread is still mid-work.
        _exit(128 + signal)
    }

    /// What the store at `path` holds now, against `before`, in words: read as committed (the work stopped here is
    /// rolled back by SQLite; what earlier transactions committed stays).
    static func words(for path: String, before: CommittedState) -> String {
        // Under the store's write lock, held until the exit: no step of this process commits after the reading. When
        // another process holds it, this one is waiting for it and commits nothing: the plain reading is the truth.
        guard let now = (try? CommittedState.readHoldingWrites(path: path)) ?? (try? CommittedState.read(path: path))
        else {
            return "the store holds what its last completed write left (it could not be read to say more)"
        }
        if now.log != before.log {
            return "the store was already replaced whole (the one it replaced is kept beside it, .bak)"
        }
        let started = now.imports.first { !before.imports.contains($0) }
        if let running = started ?? now.imports.first {
            let total = running.total.map { " of \($0)" } ?? ""
            return "imported \(running.changesRead)\(total) changes of \(running.archive) so far; the next command "
                + "on this store finishes the import"
        }
        if now.changes == before.changes && now.headSequence == before.headSequence && now.imports.isEmpty {
            return before.imports.isEmpty ? "nothing was changed" : "nothing was changed by this command"
        }
        let added = now.changes - before.changes
        return "\(Output.count(max(0, added), "change")) had already been committed and stay in the store (the "
            + "store is whole; running the command again merges nothing twice)"
    }

    private static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        return set
    }
}
