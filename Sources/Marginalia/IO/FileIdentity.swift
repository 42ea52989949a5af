#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which file a path names, as the file system knows it: a copy of a file is another file, though its bytes are
/// the same.
enum FileIdentity {
    /// The file at `path` as "device:inode", or nil when it cannot be read.
    static func of(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return "\(info.st_dev):\(info.st_ino)"
    }
}
