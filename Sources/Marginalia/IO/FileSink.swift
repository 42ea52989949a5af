#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `ByteSink` that writes to a file through a POSIX file descriptor.
///
/// Writes go straight to `write(2)` with no buffering of their own (`GzipWriter` already hands over large
/// blocks). Call `sync()` before trusting the file to survive a power loss, then `close()`; both report failure.
/// Releasing an unclosed sink closes its descriptor too, but silently: call `close()` to learn of errors.
///
/// ```swift
/// let sink = try FileSink(path: "notes.jsonl.gz")
/// let writer = try GzipWriter(sink: sink)
/// // … writer.write(…) …
/// try writer.finish()
/// try sink.sync()
/// try sink.close()
/// ```
package final class FileSink: ByteSink {
    /// The path given when opening, used in error messages.
    package var path: String { descriptor.path }
    private let descriptor: OpenDescriptor

    /// Opens `path` for writing, creating it or truncating it.
    ///
    /// - Parameters:
    ///   - path: The file to write.
    ///   - exclusive: Fail with `EEXIST` instead of truncating an existing file (for temporary files).
    ///   - permissions: The mode of a newly created file, before the umask.
    /// - Throws: `IOError` when the file cannot be opened.
    package init(path: String, exclusive: Bool = false, permissions: Int = 0o644) throws {
        let flags = O_WRONLY | O_CREAT | (exclusive ? O_EXCL : O_TRUNC)
        descriptor = OpenDescriptor(try SystemIO.open(path, flags: flags, permissions: permissions), path: path,
                                    owned: true)
    }

    /// Wraps an already open descriptor, such as standard output.
    ///
    /// - Parameters:
    ///   - fileDescriptor: An open descriptor.
    ///   - name: How to name the file in error messages, e.g. `"standard output"`.
    ///   - closesOnDeinit: Whether this sink owns the descriptor and closes it when released.
    package init(fileDescriptor: Int32, name: String, closesOnDeinit: Bool = false) {
        descriptor = OpenDescriptor(fileDescriptor, path: name, owned: closesOnDeinit)
    }

    /// Writes all of `bytes`, looping over partial writes and `EINTR`.
    ///
    /// - Throws: `IOError` with the errno text, e.g. "No space left on device" for `ENOSPC`.
    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        try SystemIO.writeAll(try descriptor.open(), bytes, path: path)
    }

    /// Flushes the file to stable storage with `fsync(2)`.
    ///
    /// - Throws: `IOError` when `fsync` fails; the file's contents must then be treated as lost.
    package func sync() throws {
        try SystemIO.sync(try descriptor.open(), path: path)
    }

    /// Closes the descriptor; later writes throw `IOError` (`EBADF`). Closing twice does nothing.
    ///
    /// - Throws: `IOError` when `close(2)` reports an error (for instance a delayed write error).
    package func close() throws {
        try descriptor.close()
    }
}

@available(*, unavailable)
extension FileSink: Sendable {}
