#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `ByteSource` that reads a file through a POSIX file descriptor.
public final class FileSource: ByteSource {
    /// The path given when opening, used in error messages.
    public let path: String
    private var descriptor: Int32
    private let ownsDescriptor: Bool

    /// Opens `path` for reading.
    ///
    /// - Parameter path: The file to read.
    /// - Throws: `GzipError.io` when the file cannot be opened.
    public init(path: String) throws {
        self.descriptor = try SystemIO.open(path, flags: O_RDONLY)
        self.path = path
        self.ownsDescriptor = true
    }

    /// Wraps an already open descriptor, such as standard input.
    ///
    /// - Parameters:
    ///   - fileDescriptor: An open descriptor.
    ///   - name: How to name the file in error messages, e.g. `"standard input"`.
    ///   - closesOnDeinit: Whether this source owns the descriptor and closes it when released.
    public init(fileDescriptor: Int32, name: String, closesOnDeinit: Bool = false) {
        self.descriptor = fileDescriptor
        self.path = name
        self.ownsDescriptor = closesOnDeinit
    }

    deinit {
        if ownsDescriptor && descriptor >= 0 {
            try? SystemIO.close(descriptor, path: path)
        }
    }

    /// Reads up to `buffer.count` bytes; 0 at end of file.
    ///
    /// - Throws: `GzipError.io` when `read(2)` fails (for instance `EISDIR` for a directory).
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard descriptor >= 0 else { throw GzipError.alreadyFinished }
        return try SystemIO.read(descriptor, into: buffer, path: path)
    }

    /// Closes the descriptor; later reads throw `GzipError.alreadyFinished`. Closing twice does nothing.
    ///
    /// - Throws: `GzipError.io` when `close(2)` reports an error.
    public func close() throws {
        guard descriptor >= 0 else { return }
        let closing = descriptor
        descriptor = -1
        try SystemIO.close(closing, path: path)
    }
}

@available(*, unavailable)
extension FileSource: Sendable {}
