#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A system call on a file failed: which call, on which file, and `errno`.
///
/// The IO layer's own error, as swift-system's `Errno`: the layers above (the archive, the sync folder, the store)
/// wrap it or let it through; conditions are told apart by `code` (`ENOSPC`, `ENOENT`), never by `message`.
///
///     do { try SystemIO.open(path, flags: O_RDONLY) }
///     catch let error as IOError where error.code == ENOENT { … }
package struct IOError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The operation that failed, as the system call is named (`open`, `write`, `rename`, …).
    package var operation: String
    /// The file it was done on; empty when there is none.
    package var path: String
    /// The `errno` it failed with (0 when the failure had none, e.g. a library call).
    package var code: Int32
    /// `code` in words (`strerror`), or what failed when there is no `errno`.
    package var message: String

    /// A failure of `operation` on `path` with `code`, described by `message`.
    package init(operation: String, path: String, code: Int32, message: String) {
        self.operation = operation
        self.path = path
        self.code = code
        self.message = message
    }

    /// Whether the disk or a quota is full: nothing more can be written there.
    package var isDiskFull: Bool { code == ENOSPC || code == EDQUOT }

    /// The failure in words: "cannot OPERATION PATH: MESSAGE".
    package var description: String {
        path.isEmpty ? "cannot \(operation): \(message)" : "cannot \(operation) \(path): \(message)"
    }

    /// A failure of `operation` on `path` with `code` (the current `errno` by default), in `strerror`'s words.
    static func posix(_ operation: String, path: String, code: Int32 = errno) -> IOError {
        IOError(operation: operation, path: path, code: code, message: String(cString: strerror(code)))
    }

    /// A file used after it was closed (or after it failed).
    static func closed(_ path: String) -> IOError {
        IOError(operation: "use", path: path, code: EBADF, message: "the file was already finished, failed or closed")
    }
}
