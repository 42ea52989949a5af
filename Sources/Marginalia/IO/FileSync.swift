import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Durable file replacement: write a temporary file, flush it, rename it over the destination, flush the
/// directory. A crash at any point leaves either the old file or the complete new one under the name.
enum FileSync {
    /// Flushes a file's data to stable storage.
    static func syncFile(at path: String) throws {
        let descriptor = try SystemIO.open(path, flags: O_RDONLY)
        defer { try? SystemIO.close(descriptor, path: path) }
        try SystemIO.sync(descriptor, path: path)
    }

    /// Flushes the directory holding `path`, so that a rename in it survives a crash.
    ///
    /// "Calling fsync() does not necessarily ensure that the entry in the directory containing the file has
    /// also reached disk. For that an explicit fsync() on a file descriptor for the directory is also needed."
    /// https://man7.org/linux/man-pages/man2/fsync.2.html
    static func syncDirectory(containing path: String) throws {
        let directory = parentDirectory(of: path)
        let descriptor = try SystemIO.open(directory, flags: O_RDONLY | O_DIRECTORY)
        defer { try? SystemIO.close(descriptor, path: directory) }
        try SystemIO.sync(descriptor, path: directory)
    }

    /// Renames the (already flushed) file `temporary` to `destination`, replacing it atomically, and flushes
    /// the directory.
    static func moveIntoPlace(_ temporary: String, at destination: String) throws {
        guard rename(temporary, destination) == 0 else { throw IOError.posix("rename", path: destination) }
        try syncDirectory(containing: destination)
    }

    /// The directory part of a path (`.` for a bare file name).
    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

extension FileSync {
    /// Whether two paths name the same file: the same device and inode when both exist, else the same path
    /// once made absolute and free of symbolic links.
    static func isSameFile(_ first: String, _ second: String) -> Bool {
        var a = stat()
        var b = stat()
        if stat(first, &a) == 0 && stat(second, &b) == 0 {
            return a.st_dev == b.st_dev && a.st_ino == b.st_ino
        }
        func canonical(_ path: String) -> String {
            URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        }
        return canonical(first) == canonical(second)
    }

    /// A fresh hidden file name in the same directory as `path` (so that a rename onto `path` is atomic):
    /// `<prefix><name>.<purpose>-<uuid>.tmp`, the pattern `TemporaryFile.removeStale(beside:)` recognizes; the
    /// prefix is "." or another that starts with one.
    static func temporaryName(beside path: String, purpose: String, prefix: String = ".") -> String {
        let directory = parentDirectory(of: path)
        let name = path.split(separator: "/").last.map(String.init) ?? "file"
        return "\(directory)/\(prefix)\(name).\(purpose)-\(Identifiers.make()).tmp"
    }
}
