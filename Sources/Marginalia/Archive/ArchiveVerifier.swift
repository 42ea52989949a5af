import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks archives completely: every byte inflated and its CRC and length checked, every record validated, the
/// trailer's counts matched, and (for a full archive) the state records equal to the state rebuilt by
/// replaying the archive's changes into a scratch store.
public enum ArchiveVerifier {
    /// Verifies the archive at `path` without touching any store.
    ///
    /// - Throws: `MarginaliaError`: `.invalidData` naming the file and line at fault, `.newerVersion`, `.io`.
    public static func verify(path: String, limits: ArchiveLimits = ArchiveLimits()) throws -> ArchiveVerification {
        try MarginaliaError.classifying { try check(path: path, limits: limits) }
    }

    private static func check(path: String, limits: ArchiveLimits) throws -> ArchiveVerification {
        // The scratch store lives (and its directory with it) until the check is done.
        // In the user's temporary directory, not beside the archive (a USB stick, a synced folder): the check
        // writes a store of about five times the archive's size, removed when done.
        let scratch = try ScratchStore(beside: FileManager.default.temporaryDirectory.path + "/marginalia")
        return try withExtendedLifetime(scratch) {
            try scratch.store.db.transaction(.immediate) {
                try ArchiveImporter(store: scratch.store).mergeArchive(path: path, limits: limits, checkState: true,
                                                                       comparingWith: nil, receipt: .restore)
                    .verification
            }
        }
    }
}

/// An empty store in a private scratch directory (`ScratchDirectory`), removed when released or when the
/// process is interrupted.
final class ScratchStore {
    let directory: ScratchDirectory
    let store: StoreWriter

    /// Makes the scratch directory beside `target` when that directory is writable (on the same file system),
    /// else in the system's temporary directory, itself a private directory there.
    /// Where a scratch directory goes that must stay on this machine: the system's temporary directory.
    static var privatePlace: String { FileManager.default.temporaryDirectory.path + "/marginalia" }

    init(beside target: String) throws {
        do {
            directory = try ScratchDirectory(beside: target)
        } catch is CleanupRegistry.Interrupted {
            throw CleanupRegistry.Interrupted()
        } catch {
            directory = try ScratchDirectory(beside: Self.privatePlace)
        }
        store = try StoreWriter.open(path: directory.path + "/scratch.db", create: true)
        // A scratch store is thrown away: durability would only slow the check down.
        try store.db.executeScript(sql: "PRAGMA synchronous = OFF")
    }
}

/// A directory of mode 0700 named like a temporary file (`.<target>.scratch-<uuid>.tmp`) and held under
/// `flock(LOCK_EX)` for its life, so that `TemporaryFile.removeStale(beside:)` removes it after a crash, and only
/// then; registered for removal on interruption, and removed with everything in it when released.
final class ScratchDirectory: Cleanable {
    let path: String
    private let state = NSLock()
    private var lock: Int32 = -1

    init(beside target: String) throws {
        path = FileSync.temporaryName(beside: target, purpose: "scratch")
        TemporaryFile.removeStale(beside: path)
        state.lock()
        defer { state.unlock() }
        try CleanupRegistry.shared.add(self)
        do {
            guard mkdir(path, PrivateFiles.directoryMode) == 0 else { throw IOError.posix("mkdir", path: path) }
            do {
                guard chmod(path, PrivateFiles.directoryMode) == 0 else { throw IOError.posix("chmod", path: path) }
                lock = try SystemIO.open(path, flags: O_RDONLY | O_DIRECTORY)
                guard flock(lock, LOCK_EX | LOCK_NB) == 0 else { throw IOError.posix("flock", path: path) }
            } catch {
                if lock >= 0 { try? SystemIO.close(lock, path: path) }
                lock = -1
                rmdir(path)
                throw error
            }
        } catch {
            CleanupRegistry.shared.remove(self)
            throw error
        }
    }

    deinit {
        state.lock()
        defer { state.unlock() }
        guard lock >= 0 else { return }
        try? FileManager.default.removeItem(atPath: path)
        try? SystemIO.close(lock, path: path)
        lock = -1
        CleanupRegistry.shared.remove(self)
    }

    var removalByName: @Sendable () -> Void {
        { [path] in Self.removeTree(path) }
    }

    /// Removes the directory and everything in it, again while a file made meanwhile keeps it from going.
    private static func removeTree(_ path: String) {
        for _ in 0..<100 where FileManager.default.fileExists(atPath: path) {
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    func removeFilesNow() {
        state.lock()
        defer { state.unlock() }
        guard lock >= 0 else { return }
        // The interrupted work may still be making the store's files in it (its -wal, its -shm) while the tree is
        // removed: a file made after the listing keeps the directory from going ("rmdir() … ENOTEMPTY", rmdir(2)).
        // Once the directory is gone, nothing more can be made in it.
        Self.removeTree(path)
    }
}
