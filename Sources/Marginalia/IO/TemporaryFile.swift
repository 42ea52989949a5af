import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A temporary file beside the file it will replace, private, locked and registered for its whole life.
///
/// Named `.<target>.<purpose>-<uuid>.tmp` in the target's directory (so that the final rename is atomic), created
/// with `O_EXCL` and mode 0600 (or tighter), and held under `flock(LOCK_EX)` until it is moved into place or
/// removed. The lock is the proof that a writer is alive: "A lock is released … when all file descriptors
/// referring to the open file description are closed" — the kernel closes them when a process dies, even by
/// SIGKILL (https://man7.org/linux/man-pages/man2/flock.2.html). `removeStale(beside:)` therefore deletes only the
/// temporary files of dead writers. Every live one is in a process-wide registry, so that an interrupted command
/// can remove them all (`removeAllRegistered()`).
///
/// ```swift
/// let temporary = try TemporaryFile(beside: target, purpose: "export")
/// // … write temporary.path …
/// try temporary.moveIntoPlace(at: target)   // or temporary.remove() on failure; releasing it removes it too
/// ```
package final class TemporaryFile: @unchecked Sendable {
    /// The temporary file's path.
    package let path: String
    /// SQLite's side files of a database at `path`, removed with it.
    static let sideSuffixes = ["-wal", "-shm", "-journal"]

    private let state = NSLock()
    private var descriptor: Int32 = -1
    private var device = dev_t()
    private var inode = ino_t()

    /// Creates a new empty temporary file beside `target`.
    /// - Parameters:
    ///   - purpose: a lowercase word naming the work, e.g. `"export"` (part of the name).
    ///   - mode: the file's mode, at most 0600.
    ///   - prefix: the start of the name, "." or another beginning with it (a sync folder's, which sync tools skip).
    /// - Throws: `IOError` when the file cannot be created; `CleanupRegistry.Interrupted` once the process
    ///   is being interrupted.
    package init(beside target: String, purpose: String, mode: mode_t = PrivateFiles.fileMode,
                 prefix: String = ".") throws {
        path = FileSync.temporaryName(beside: target, purpose: purpose, prefix: prefix)
        // Registered before the file exists, and created under the lock that an interruption's clean-up takes:
        // the file cannot appear unseen between its creation and its registration.
        state.lock()
        defer { state.unlock() }
        try CleanupRegistry.shared.add(self)
        // The file is made under a name that `removeStale` does not take for a temporary file, locked, and only then
        // renamed to its own name: another process's scan, listing the directory between the creation and the lock,
        // would otherwise take the lock first and delete a live file. The lock stays with the open file across the
        // rename.
        let creating = path + Self.creatingSuffix
        let descriptor: Int32
        do {
            descriptor = try SystemIO.open(creating, flags: O_RDWR | O_CREAT | O_EXCL,
                                           permissions: Int(mode & PrivateFiles.fileMode))
        } catch {
            CleanupRegistry.shared.remove(self)
            throw error
        }
        var info = stat()
        do {
            try PrivateFiles.setMode(descriptor, mode & PrivateFiles.fileMode, path: creating)
            // No other process looks for this name: the lock is granted at once.
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { throw IOError.posix("flock", path: creating) }
            guard rename(creating, path) == 0 else { throw IOError.posix("rename", path: creating) }
            guard fstat(descriptor, &info) == 0 else { throw IOError.posix("fstat", path: path) }
        } catch {
            unlink(creating)
            unlink(path)
            try? SystemIO.close(descriptor, path: path)
            CleanupRegistry.shared.remove(self)
            throw error
        }
        self.descriptor = descriptor
        device = info.st_dev
        inode = info.st_ino
    }

    deinit {
        remove()
    }

    /// The suffix of a temporary file's name while it is being made, before it is locked; see `init`.
    static let creatingSuffix = "-new"

    /// A new descriptor for writing the file (the caller closes it); the lock stays with this object.
    package func openForWriting() throws -> Int32 {
        try SystemIO.open(path, flags: O_WRONLY)
    }

    /// Flushes the file's data to stable storage.
    package func sync() throws {
        state.lock()
        defer { state.unlock() }
        guard descriptor >= 0 else { throw IOError.closed(path) }
        try SystemIO.sync(descriptor, path: path)
    }

    /// Flushes the file, renames it over `destination` and flushes the directory; the file is then no longer
    /// temporary.
    package func moveIntoPlace(at destination: String) throws {
        try sync()
        state.lock()
        defer { state.unlock() }
        guard descriptor >= 0 else { throw IOError.closed(path) }
        guard rename(path, destination) == 0 else { throw IOError.posix("rename", path: destination) }
        release()
        try FileSync.syncDirectory(containing: destination)
    }

    /// Flushes the file, renames it to `destination` and flushes the directory, like `moveIntoPlace`, but keeps it
    /// locked: the descriptor holding the `flock` is handed to the caller, who closes it when done. The file leaves
    /// the registry (an interruption no longer removes it) and, under a name not of a temporary file's pattern,
    /// `removeStale` leaves it alone: what outlives this process is the caller's to find.
    package func keepLocked(as destination: String) throws -> Int32 {
        try sync()
        state.lock()
        defer { state.unlock() }
        guard descriptor >= 0 else { throw IOError.closed(path) }
        guard rename(path, destination) == 0 else { throw IOError.posix("rename", path: destination) }
        let kept = descriptor
        descriptor = -1
        CleanupRegistry.shared.remove(self)
        do {
            try FileSync.syncDirectory(containing: destination)
        } catch {
            try? SystemIO.close(kept, path: destination)
            throw error
        }
        return kept
    }

    /// Removes the file and its SQLite side files, if they are still there; removing twice does nothing.
    package func remove() {
        state.lock()
        defer { state.unlock() }
        guard descriptor >= 0 else { return }
        unlinkFiles()
        release()
    }

    /// Removes the files without releasing anything: what an interrupted process does just before it exits.
    func removeFilesNow() {
        state.lock()
        defer { state.unlock() }
        guard descriptor >= 0 else { return }
        unlinkFiles()
    }

    /// Unlinks the file (only while the name is still this file: it may have been renamed into place) and its
    /// side files. The caller holds `state`.
    private func unlinkFiles() {
        var info = stat()
        if stat(path, &info) == 0 && info.st_dev == device && info.st_ino == inode {
            unlink(path)
        }
        for suffix in Self.sideSuffixes { unlink(path + suffix) }
    }

    /// Closes the descriptor (releasing the lock) and leaves the registry. The caller holds `state`.
    private func release() {
        try? SystemIO.close(descriptor, path: path)
        descriptor = -1
        CleanupRegistry.shared.remove(self)
    }

    /// Removes every registered temporary file and scratch directory of this process, for a command that was
    /// interrupted and is about to exit.
    package static func removeAllRegistered() {
        CleanupRegistry.shared.cleanUpAll()
    }

    /// Whether `removeAllRegistered()` has begun: work that fails from now on fails because of it.
    package static var isInterrupting: Bool { CleanupRegistry.shared.isInterrupting }
}

/// Something to remove when the process is interrupted.
protocol Cleanable: AnyObject {
    func removeFilesNow()
    /// What removes the files by name alone, for an item whose release has begun (its `deinit` runs) when the
    /// process is interrupted: the registry no longer reaches it, and the process may exit before it is done.
    var removalByName: @Sendable () -> Void { get }
}

extension TemporaryFile: Cleanable {
    var removalByName: @Sendable () -> Void {
        { [path] in
            unlink(path)
            for suffix in Self.sideSuffixes { unlink(path + suffix) }
        }
    }
}

/// The process-wide list of live temporary files and scratch directories (held weakly: releasing one removes
/// it from the list).
final class CleanupRegistry: @unchecked Sendable {
    static let shared = CleanupRegistry()

    private struct Entry {
        weak var value: (any Cleanable)?
        /// Removes the item's files by name, when `value` is already gone but the item has not left the list:
        /// its release is under way on another thread.
        let byName: @Sendable () -> Void
    }

    private let lock = NSLock()
    private var entries: [ObjectIdentifier: Entry] = [:]
    private var interrupted = false

    /// The process is being interrupted: nothing new may be created.
    struct Interrupted: Error, CustomStringConvertible {
        var description: String { "interrupted" }
    }

    /// Registers `item`, before it creates anything.
    /// - Throws: `Interrupted` once `cleanUpAll()` has begun.
    func add(_ item: any Cleanable) throws {
        lock.lock()
        defer { lock.unlock() }
        guard !interrupted else { throw Interrupted() }
        entries[ObjectIdentifier(item)] = Entry(value: item, byName: item.removalByName)
    }

    func remove(_ item: any Cleanable) {
        lock.lock()
        defer { lock.unlock() }
        entries[ObjectIdentifier(item)] = nil
    }

    var isInterrupting: Bool {
        lock.lock()
        defer { lock.unlock() }
        return interrupted
    }

    /// Removes the files of every registered item; from now on nothing new can be registered.
    func cleanUpAll() {
        lock.lock()
        interrupted = true
        let items = entries.values.map { ($0.value, $0.byName) }
        lock.unlock()
        // An item being released right now (its `deinit` removing its files) is no longer reachable, but its
        // removal may not finish before the process exits: its files are removed here by name.
        for (item, byName) in items {
            if let item { item.removeFilesNow() } else { byName() }
        }
    }
}
