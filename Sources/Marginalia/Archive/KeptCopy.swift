#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The staged copy of an import kept beside the store (`PendingImport`), opened to finish the import only once it
/// is shown to be the very file the import kept: a regular file, locked by no live process, of the size and
/// SHA-256 recorded when it was kept. Whatever is in its place otherwise is never read as a database.
///
///     switch KeptCopy.lock(path) {
///     case .locked(let copy):
///         defer { copy.close() }
///         if let problem = copy.problem(against: pending.keptCopy) { … }  // abandon the import
///         // … attach it and merge …
///     case .held: break                         // a live process is importing from it
///     case .refused(let problem): …             // abandon the import
///     }
struct KeptCopy {
    /// The copy's size and SHA-256, as its import recorded them.
    struct Fingerprint: Equatable {
        var size: Int64
        var sha256: String
    }

    /// What taking a kept copy's lock found.
    enum Locking {
        /// A regular file, locked by this process until `close()`.
        case locked(KeptCopy)
        /// A live process holds the copy's lock: it is importing from it.
        case held
        /// The copy cannot be opened: missing, not a regular file, or unreadable.
        case refused(AbandonedImport.Problem)
    }

    let path: String
    private let descriptor: Int32
    private let device: dev_t
    private let inode: ino_t
    private let size: Int64

    /// Opens the kept copy at `path` and takes its lock without waiting. Nothing but a regular file is opened at
    /// all: `lstat` first, then `O_NONBLOCK | O_NOFOLLOW` and `fstat`, so that a FIFO put there meanwhile cannot
    /// block the open either.
    static func lock(_ path: String) -> Locking {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .refused(errno == ENOENT ? .missing : .unreadable(errno)) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .refused(.notARegularFile(FileKind.words(for: info.st_mode))) }
        let descriptor: Int32
        do {
            // "When opening a FIFO with O_RDONLY or O_WRONLY set: If O_NONBLOCK is set, an open() for reading-only
            // shall return without delay" https://pubs.opengroup.org/onlinepubs/9699919799/functions/open.html
            descriptor = try SystemIO.open(path, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        } catch let error as IOError {
            switch error.code {
            case ENOENT: return .refused(.missing)
            case ELOOP: return .refused(.notARegularFile("a symbolic link"))
            default: return .refused(.unreadable(error.code))
            }
        } catch {
            return .refused(.unreadable(EIO))
        }
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            let problem: AbandonedImport.Problem = (info.st_mode & S_IFMT) == S_IFREG
                ? .unreadable(errno) : .notARegularFile(FileKind.words(for: info.st_mode))
            try? SystemIO.close(descriptor, path: path)
            return .refused(problem)
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            try? SystemIO.close(descriptor, path: path)
            return code == EWOULDBLOCK ? .held : .refused(.unreadable(code))
        }
        return .locked(KeptCopy(path: path, descriptor: descriptor, device: info.st_dev, inode: info.st_ino,
                                size: Int64(info.st_size)))
    }

    /// What keeps the import from being finished from this copy, or nil when it has the size and SHA-256 recorded
    /// (`recorded`). Without a record (one an earlier version kept) the copy cannot be checked, and is refused;
    /// a copy of another size is refused without being read.
    func problem(against recorded: Fingerprint?) -> AbandonedImport.Problem? {
        guard let recorded else { return .unrecorded }
        guard size == recorded.size else { return .changed }
        do {
            return try Self.fingerprint(of: descriptor, path: path) == recorded ? nil : .changed
        } catch {
            return .unreadable((error as? IOError)?.code ?? EIO)
        }
    }

    /// The size and SHA-256 of the file open as `descriptor`, read from its start (with `pread`: the descriptor's
    /// offset is left as it was).
    static func fingerprint(of descriptor: Int32, path: String) throws -> Fingerprint {
        let hasher = try SHA256Hasher()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: Int64 = 0
        while true {
            let count = try buffer.withUnsafeMutableBytes { bytes in
                while true {
                    let count = pread(descriptor, bytes.baseAddress, bytes.count, off_t(offset))
                    if count >= 0 { return count }
                    if errno != EINTR { throw IOError.posix("read", path: path) }
                }
            }
            if count == 0 { break }
            try buffer.withUnsafeBytes { try hasher.update(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            offset += Int64(count)
        }
        return Fingerprint(size: offset, sha256: try hasher.finalizeHex())
    }

    /// Whether `path` still names the file checked (not another one renamed over it since).
    var isStillInPlace: Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_dev == device && info.st_ino == inode
    }

    /// Removes the copy from the directory (while its lock is still held: no other process takes it meanwhile).
    func remove() {
        if isStillInPlace { unlink(path) }
    }

    /// Releases the copy's lock.
    func close() {
        try? SystemIO.close(descriptor, path: path)
    }
}

@available(*, unavailable)
extension KeptCopy: Sendable {}
