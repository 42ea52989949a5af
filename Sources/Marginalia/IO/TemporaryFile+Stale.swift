import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension TemporaryFile {
    /// Removes, from the directory holding `path`, the temporary files and scratch directories that dead
    /// processes left behind: those named as `TemporaryFile` and `ScratchStore` name them whose `flock` this
    /// process can take (a live writer holds its own), with their SQLite `-wal`, `-shm` and `-journal` files.
    ///
    /// Never fails: a directory that cannot be read or written (read-only media) is left as it is.
    /// - Returns: the paths removed.
    @discardableResult
    package static func removeStale(beside path: String) -> [String] {
        removeStale(inDirectory: FileSync.parentDirectory(of: path))
    }

    /// `removeStale(beside:)` for the entries of `directory` itself.
    @discardableResult
    static func removeStale(inDirectory directory: String) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var removed: [String] = []
        let present = Set(names)
        for name in names where name.hasSuffix(TemporaryFile.creatingSuffix)
            && isTemporaryName(String(name.dropLast(TemporaryFile.creatingSuffix.count))) {
            // A process killed between making a file and renaming it, microseconds apart, left it unlocked: taken
            // for abandoned only once it is a minute old.
            let path = directory + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            #if canImport(Darwin)
            let modified = info.st_mtimespec.tv_sec
            #else
            let modified = info.st_mtim.tv_sec
            #endif
            if time(nil) - modified > 60, unlink(path) == 0 {
                removed.append(path)
            }
        }
        for name in names where isTemporaryName(name) {
            let path = directory + "/" + name
            guard let owner = lockIfAbandoned(path) else { continue }
            defer { try? SystemIO.close(owner, path: path) }
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                if (try? FileManager.default.removeItem(atPath: path)) != nil { removed.append(path) }
                continue
            }
            // The side files first: a database without its log is never left looking whole.
            for suffix in sideSuffixes where present.contains(name + suffix) && unlink(path + suffix) == 0 {
                removed.append(path + suffix)
            }
            if unlink(path) == 0 { removed.append(path) }
        }
        return removed
    }

    /// Whether `name` is a temporary file's or scratch directory's name: `.<anything>.<purpose>-<uuid>.tmp`.
    static func isTemporaryName(_ name: String) -> Bool {
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return false }
        let stem = name.dropLast(4)
        guard stem.count > 38 else { return false }
        let id = stem.suffix(36)
        guard stem.dropLast(36).last == "-", id.allSatisfy({ $0.isHexDigit && !$0.isUppercase || $0 == "-" }),
              id.filter({ $0 == "-" }).count == 4 else { return false }
        let rest = stem.dropLast(37)
        guard let dot = rest.lastIndex(of: "."), dot != rest.startIndex else { return false }
        let purpose = rest[rest.index(after: dot)...]
        return !purpose.isEmpty && purpose.allSatisfy { $0.isASCII && $0.isLowercase }
    }

    /// Opens `path` and takes its `flock` without waiting; the descriptor (holding the lock) when the lock was
    /// free, nil when a live process holds it or the file cannot be opened.
    private static func lockIfAbandoned(_ path: String) -> Int32? {
        // O_NOFOLLOW: a name of this pattern that is a symbolic link is not this project's.
        guard let descriptor = try? SystemIO.open(path, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK) else { return nil }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            try? SystemIO.close(descriptor, path: path)
            return nil
        }
        return descriptor
    }
}
