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
        if let store = createdStore {
            for suffix in ["", "-wal", "-shm"] { unlink(store + suffix) }
        }
        lock.unlock()
        let name = signal == SIGINT ? "SIGINT" : "SIGTERM"
        let line = "Error: interrupted by \(name); nothing was changed\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
        // _exit: no atexit handlers or buffered-output flushing while the main thread is still mid-work.
        _exit(128 + signal)
    }

    private static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        return set
    }
}
