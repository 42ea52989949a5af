import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a complete check of an archive found.
public struct ArchiveVerification: Equatable, Sendable {
    public var summary: ArchiveSummary
    /// State records found equal to the state rebuilt from the archive's changes.
    public var annotationsChecked = 0
    public var positionsChecked = 0

    public init(summary: ArchiveSummary) {
        self.summary = summary
    }
}

/// Checks archives completely: every byte inflated and its CRC and length checked, every record validated, the
/// trailer's counts matched, and (for a full archive) the state records equal to the state rebuilt by
/// replaying the archive's changes into a scratch store.
public enum ArchiveVerifier {
    /// Verifies the archive at `path` without touching any store.
    public static func verify(path: String, limits: ArchiveLimits = ArchiveLimits()) throws -> ArchiveVerification {
        // The scratch store lives (and its directory with it) until the check is done.
        let scratch = try ScratchStore(beside: path)
        return try withExtendedLifetime(scratch) {
            try scratch.store.db.transaction(.immediate) {
                try scratch.store.mergeArchive(path: path, limits: limits, checkState: true, comparingWith: nil)
                    .verification
            }
        }
    }
}

/// An empty store in a private scratch directory, removed when released or when the process is interrupted.
///
/// The directory (0700, so that the copies of notes it holds are nobody else's) is made beside `target` when that
/// directory is writable, on the same file system, else in the system's temporary directory. It is held under
/// `flock(LOCK_EX)` for its life and named like a temporary file, so that `TemporaryFile.removeStale(beside:)`
/// removes it after a crash, and only then.
final class ScratchStore: Cleanable {
    let directory: String
    let store: AnnotationStore
    private let state = NSLock()
    private var lock: Int32

    init(beside target: String) throws {
        var made: (String, Int32)?
        var firstError: Error?
        // The fallback is itself a private directory: `$TMPDIR/.marginalia.scratch-<uuid>.tmp`.
        for place in [target, FileManager.default.temporaryDirectory.path + "/marginalia"] {
            do {
                made = try Self.makeDirectory(beside: place)
                break
            } catch {
                firstError = firstError ?? error
            }
        }
        guard let (directory, lock) = made else { throw firstError ?? GzipError.alreadyFinished }
        do {
            store = try AnnotationStore.open(path: directory + "/scratch.db", access: .create)
            // A scratch store is thrown away: durability would only slow the check down.
            try store.db.executeScript(sql: "PRAGMA synchronous = OFF")
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            try? SystemIO.close(lock, path: directory)
            throw error
        }
        self.directory = directory
        self.lock = lock
        CleanupRegistry.shared.add(self)
    }

    deinit {
        remove()
    }

    /// Makes a locked private directory beside `place`, after removing the ones dead processes left there.
    private static func makeDirectory(beside place: String) throws -> (String, Int32) {
        let path = FileSync.temporaryName(beside: place, purpose: "scratch")
        TemporaryFile.removeStale(beside: path)
        guard mkdir(path, PrivateFiles.directoryMode) == 0 else { throw GzipError.posix("mkdir", path: path) }
        do {
            guard chmod(path, PrivateFiles.directoryMode) == 0 else { throw GzipError.posix("chmod", path: path) }
            let descriptor = try SystemIO.open(path, flags: O_RDONLY | O_DIRECTORY)
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                try? SystemIO.close(descriptor, path: path)
                throw GzipError.posix("flock", path: path)
            }
            return (path, descriptor)
        } catch {
            rmdir(path)
            throw error
        }
    }

    /// Removes the directory and everything in it; removing twice does nothing.
    func remove() {
        state.lock()
        defer { state.unlock() }
        guard lock >= 0 else { return }
        try? FileManager.default.removeItem(atPath: directory)
        try? SystemIO.close(lock, path: directory)
        lock = -1
        CleanupRegistry.shared.remove(self)
    }

    func removeFilesNow() {
        state.lock()
        defer { state.unlock() }
        guard lock >= 0 else { return }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
