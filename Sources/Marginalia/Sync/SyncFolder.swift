import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files of one sync folder: its manifest, its device directories and their segments.
///
/// Reads anything, never through a symbolic link; writes only in one device's directory: new files, each through
/// a private temporary file that is flushed and renamed into place, and its status file replaced whole.
struct SyncFolder {
    /// The folder, absolute and free of symbolic links.
    let root: String

    init(path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw MarginaliaError(category: .notFound, reason: .other(
                "no sync folder \(path) (\(String(cString: strerror(errno)))); create it, or let the sync tool create "
                    + "it, then run sync again"))
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw MarginaliaError(category: .invalidArgument, reason: .other("\(path) is not a folder"))
        }
        root = try Self.canonical(path)
    }

    var manifestPath: String { "\(root)/\(SyncFormat.manifestName)" }
    var devicesPath: String { "\(root)/\(SyncFormat.devicesDirectory)" }

    func directory(of device: String) -> String { "\(devicesPath)/\(device)" }

    /// Refuses a store that lives in the folder: a sync tool copying a database that is open corrupts it.
    func refuseStore(at storePath: String) throws {
        guard storePath != ":memory:", !storePath.isEmpty else { return }
        let storeDirectory = try Self.canonical(FileSync.parentDirectory(of: storePath))
        guard storeDirectory == root || storeDirectory.hasPrefix(root + "/") else { return }
        throw MarginaliaError(category: .invalidArgument, reason: .other(
            "will not sync \(storePath) through \(root): the store lives inside the folder it syncs, and a sync tool "
                + "that copies a database while it is open corrupts it; keep the store outside the folder (the "
                + "default place, or --store PATH elsewhere)"))
    }

    /// An existing path made absolute and free of symbolic links (POSIX `realpath`).
    static func canonical(_ path: String) throws -> String {
        guard let resolved = realpath(path, nil) else { throw IOError.posix("realpath", path: path) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    // MARK: - Manifests

    /// A manifest that does not parse and ends before its JSON or its final newline (empty, or cut short): a sync
    /// tool may still be copying it.
    struct ManifestPending: Error {}

    /// Checks the folder-wide manifest of format 1, when there is one.
    /// - Throws: `ManifestPending` for a manifest cut short; `SyncFolderError` for one that is not a manifest, or
    ///   needs a newer reader (the folder is then left untouched).
    func checkFolderManifest() throws {
        let bytes: [UInt8]
        do {
            bytes = try Self.readFile(manifestPath, limit: SyncFormat.maxSmallFileBytes)
        } catch let error as IOError where error.code == ENOENT {
            return
        }
        _ = try DeviceManifest(bytes: bytes, file: manifestPath)
    }

    /// The manifest of `device`'s directory; nil when it has none (yet).
    /// - Throws: as `checkFolderManifest`.
    func manifest(of device: String) throws -> DeviceManifest? {
        let path = "\(directory(of: device))/\(SyncFormat.deviceManifestName)"
        let bytes: [UInt8]
        do {
            bytes = try Self.readFile(path, limit: SyncFormat.maxSmallFileBytes)
        } catch let error as IOError where error.code == ENOENT {
            return nil
        }
        return try DeviceManifest(bytes: bytes, file: path)
    }

    // MARK: - Listing

    /// What `lstat` tells of a name in the folder.
    struct FileInfo: Equatable {
        enum Kind { case regular, directory, symbolicLink, other }
        var kind: Kind
        var size: Int64
        /// The modification time, in nanoseconds since 1970.
        var modified: Int64
    }

    /// What is at `path`, without following a symbolic link; nil when nothing is.
    static func info(_ path: String) -> FileInfo? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        let kind: FileInfo.Kind
        switch status.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        #if canImport(Darwin)
        let time = status.st_mtimespec
        #else
        let time = status.st_mtim
        #endif
        return FileInfo(kind: kind, size: Int64(status.st_size),
                        modified: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
    }

    /// The device directories present, by name, and whether each is a symbolic link (never followed).
    func deviceDirectories() throws -> [(name: String, isLink: Bool)] {
        try Self.list(devicesPath).compactMap { name in
            guard !name.hasPrefix("."), let info = Self.info("\(devicesPath)/\(name)") else { return nil }
            switch info.kind {
            case .directory: return (name, false)
            case .symbolicLink: return (name, true)
            default: return nil
            }
        }
    }

    /// The names in a directory, sorted; none when it does not exist.
    static func list(_ directory: String) throws -> [String] {
        guard let handle = opendir(directory) else {
            if errno == ENOENT { return [] }
            throw IOError.posix("opendir", path: directory)
        }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    // MARK: - Writing

    /// Makes `devices/<device>/` ready for this store's files: refuses `devices/` or the directory when either is
    /// a symbolic link, creates them when absent (mode 0700), and writes the device's manifest when it has none.
    /// Returns whether it wrote the manifest.
    /// - Throws: `SyncFolderError` (`.symbolicLink`, `.notWritable`), before anything is written.
    func prepareDirectory(of device: String, manifest: () throws -> DeviceManifest,
                          encode: (DeviceManifest) throws -> [UInt8] = { try $0.encoded() }) throws -> Bool {
        for path in [devicesPath, directory(of: device)] {
            if let info = Self.info(path), info.kind == .symbolicLink {
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "elsewhere"
                throw SyncFolderError(file: path, kind: .symbolicLink, reason: "is a symbolic link (to \(target)): "
                    + "marginalia writes only into real directories inside the folder, so it wrote nothing; replace "
                    + "the link with a directory")
            }
        }
        do {
            for path in [devicesPath, directory(of: device)] where mkdir(path, 0o700) != 0 && errno != EEXIST {
                throw IOError.posix("mkdir", path: path)
            }
            let path = "\(directory(of: device))/\(SyncFormat.deviceManifestName)"
            guard Self.info(path) == nil else { return false }
            do {
                try writeNew(path, bytes: try encode(try manifest()))
            } catch let error as IOError where error.code == EEXIST {
                return false  // another round of this store wrote it meanwhile
            }
            return true
        } catch let error as IOError where [EROFS, EACCES, EPERM].contains(error.code) {
            throw SyncFolderError(file: directory(of: device), kind: .notWritable, reason: "cannot be written "
                + "(\(error)): nothing was merged or written; sync needs a folder it can write in")
        }
    }

    /// Takes this store's lock on its own directory in the folder, waiting while another round of the same store
    /// (this process or another) holds it: one round at a time writes there. Released when the lock is.
    func lock(directoryOf device: String) throws -> FolderLock {
        try FolderLock(directory: directory(of: device), flags: O_NOFOLLOW)
    }

    /// Replaces the file at `path` whole (a status file this store alone writes), through a temporary file.
    func replace(_ path: String, bytes: [UInt8]) throws {
        try write(bytes, to: path, replacing: true)
    }

    /// Writes a new file at `path` through a private temporary file beside it (`.name….tmp`), flushed, then
    /// renamed into place; refuses to replace a file already there.
    func writeNew(_ path: String, bytes: [UInt8]) throws {
        try write(bytes, to: path, replacing: false)
    }

    /// Writes `bytes` into a private temporary file beside `path` (named so that sync tools skip it), then flushes
    /// it and renames it into place; without `replacing`, a file already at `path` is refused.
    private func write(_ bytes: [UInt8], to path: String, replacing: Bool) throws {
        let temporary = try TemporaryFile(beside: path, purpose: "sync", prefix: SyncFormat.temporaryPrefix)
        defer { temporary.remove() }
        let descriptor = try temporary.openForWriting()
        do {
            try bytes.withUnsafeBytes { try SystemIO.writeAll(descriptor, $0, path: temporary.path) }
            try SystemIO.close(descriptor, path: temporary.path)
        } catch {
            try? SystemIO.close(descriptor, path: temporary.path)
            throw error
        }
        guard replacing || Self.info(path) == nil else {
            throw IOError(operation: "rename", path: path, code: EEXIST, message: "a file is already there")
        }
        try temporary.moveIntoPlace(at: path)
    }

    /// Reads a whole file of at most `limit` bytes.
    static func readFile(_ path: String, limit: Int64) throws -> [UInt8] {
        let descriptor = try SystemIO.open(path, flags: O_RDONLY | O_NOFOLLOW)
        defer { try? SystemIO.close(descriptor, path: path) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try SystemIO.read(descriptor, into: $0, path: path) }
            if count == 0 { return bytes }
            bytes.append(contentsOf: buffer[0..<count])
            if Int64(bytes.count) > limit {
                throw IOError(operation: "read", path: path, code: EFBIG, message: "larger than \(limit) bytes")
            }
        }
    }
}

/// A round's hold on its store's own directory in the folder (`SyncFolder.lock`); released when dropped.
final class FolderLock {
    private let descriptor: Int32
    private let path: String

    /// Takes the lock on the directory at `path` (opened with `flags` besides `O_RDONLY | O_DIRECTORY`), waiting
    /// while another holds it.
    init(directory path: String, flags: Int32 = 0) throws {
        let descriptor = try SystemIO.open(path, flags: O_RDONLY | O_DIRECTORY | flags)
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let error = IOError.posix("flock", path: path)
                try? SystemIO.close(descriptor, path: path)
                throw error
            }
        }
        self.descriptor = descriptor
        self.path = path
    }

    deinit {
        try? SystemIO.close(descriptor, path: path)
    }
}
