#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The POSIX calls behind `FileSink` and `FileSource`, retried on `EINTR` and failing with `IOError`.
enum SystemIO {
    /// Opens `path`, retrying when a signal interrupts the call.
    static func open(_ path: String, flags: Int32, permissions: Int = 0) throws -> Int32 {
        while true {
            // errno is read inside the closure, before withCString can free a temporary copy of the path.
            let (descriptor, code) = path.withCString { cPath -> (Int32, Int32) in
                let descriptor = systemOpen(cPath, flags | O_CLOEXEC, mode_t(permissions))
                return (descriptor, descriptor < 0 ? errno : 0)
            }
            if descriptor >= 0 { return descriptor }
            if code != EINTR { throw IOError.posix("open", path: path, code: code) }
        }
    }

    /// Writes all of `bytes`, looping over partial writes and `EINTR`.
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        guard var next = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = systemWrite(descriptor, next, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                throw IOError.posix("write", path: path)
            }
            // POSIX allows write() to return 0 for a non-empty request; retrying could spin forever.
            if written == 0 { throw IOError.posix("write", path: path, code: EIO) }
            next += written
            remaining -= written
        }
    }

    /// Reads once into `buffer`, retrying on `EINTR`; 0 means end of file.
    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws -> Int {
        guard let start = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let count = systemRead(descriptor, start, buffer.count)
            if count >= 0 { return count }
            if errno != EINTR { throw IOError.posix("read", path: path) }
        }
    }

    /// Flushes the file to stable storage; a failure means earlier writes may be lost and must not be ignored.
    static func sync(_ descriptor: Int32, path: String) throws {
        #if canImport(Darwin)
        // "fsync() … does not ensure that the data is written to the permanent storage … use F_FULLFSYNC"; some
        // file systems do not support it, and then fsync is the best there is.
        // https://developer.apple.com/library/archive/documentation/System/Conceptual/ManPages_iPhoneOS/man2/fsync.2.html
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return }
        #endif
        while fsync(descriptor) != 0 {
            if errno != EINTR { throw IOError.posix("fsync", path: path) }
        }
    }

    /// Closes the descriptor exactly once.
    static func close(_ descriptor: Int32, path: String) throws {
        // Linux releases the descriptor even when close() fails with EINTR, so retrying could close a
        // descriptor another thread just opened; EINTR is therefore not an error here.
        if systemClose(descriptor) != 0 && errno != EINTR {
            throw IOError.posix("close", path: path)
        }
    }

    // The methods above named `open`, `read` and `close` shadow the C functions, hence the qualified names.
    #if canImport(Glibc)
    private static func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32 {
        Glibc.open(path, flags, mode)
    }
    private static func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        Glibc.write(fd, bytes, count)
    }
    private static func systemRead(_ fd: Int32, _ bytes: UnsafeMutableRawPointer, _ count: Int) -> Int {
        Glibc.read(fd, bytes, count)
    }
    private static func systemClose(_ fd: Int32) -> Int32 { Glibc.close(fd) }
    #elseif canImport(Darwin)
    private static func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32 {
        Darwin.open(path, flags, mode)
    }
    private static func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        Darwin.write(fd, bytes, count)
    }
    private static func systemRead(_ fd: Int32, _ bytes: UnsafeMutableRawPointer, _ count: Int) -> Int {
        Darwin.read(fd, bytes, count)
    }
    private static func systemClose(_ fd: Int32) -> Int32 { Darwin.close(fd) }
    #endif
}

/// An open file descriptor and the name its errors give, closed exactly once: by `close()`, or when released if
/// it is owned. The one place `FileSource` and `FileSink` keep their descriptor.
final class OpenDescriptor {
    /// The path given when opening, or a name such as `"standard output"`, used in error messages.
    let path: String
    private var descriptor: Int32
    private let owned: Bool

    init(_ descriptor: Int32, path: String, owned: Bool) {
        self.descriptor = descriptor
        self.path = path
        self.owned = owned
    }

    deinit {
        if owned && descriptor >= 0 {
            try? SystemIO.close(descriptor, path: path)
        }
    }

    /// The descriptor while open.
    /// - Throws: `IOError` (`EBADF`) once closed.
    func open() throws -> Int32 {
        guard descriptor >= 0 else { throw IOError.closed(path) }
        return descriptor
    }

    /// Closes the descriptor; closing twice does nothing.
    /// - Throws: `IOError` when `close(2)` reports an error.
    func close() throws {
        guard descriptor >= 0 else { return }
        let closing = descriptor
        descriptor = -1
        try SystemIO.close(closing, path: path)
    }
}
