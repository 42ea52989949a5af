#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `ByteSource` that reads a file through a POSIX file descriptor.
package final class FileSource: ByteSource {
    /// The path given when opening, used in error messages.
    package var path: String { descriptor.path }
    private let descriptor: OpenDescriptor

    /// Opens `path` for reading.
    ///
    /// - Parameter path: The file to read.
    /// - Throws: `IOError` when the file cannot be opened.
    package init(path: String) throws {
        descriptor = OpenDescriptor(try SystemIO.open(path, flags: O_RDONLY), path: path, owned: true)
    }

    /// Wraps an already open descriptor, such as standard input.
    ///
    /// - Parameters:
    ///   - fileDescriptor: An open descriptor.
    ///   - name: How to name the file in error messages, e.g. `"standard input"`.
    ///   - closesOnDeinit: Whether this source owns the descriptor and closes it when released.
    package init(fileDescriptor: Int32, name: String, closesOnDeinit: Bool = false) {
        descriptor = OpenDescriptor(fileDescriptor, path: name, owned: closesOnDeinit)
    }

    /// Reads up to `buffer.count` bytes; 0 at end of file.
    ///
    /// - Throws: `IOError` when `read(2)` fails (for instance `EISDIR` for a directory).
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try SystemIO.read(try descriptor.open(), into: buffer, path: path)
    }

    /// Closes the descriptor; later reads throw `IOError` (`EBADF`). Closing twice does nothing.
    ///
    /// - Throws: `IOError` when `close(2)` reports an error.
    package func close() throws {
        try descriptor.close()
    }
}

@available(*, unavailable)
extension FileSource: Sendable {}
