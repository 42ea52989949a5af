import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files of one sync folder: its manifest, its device directories and their segments.
///
/// Reads anything; writes only the manifest (once, when absent) and new files in one device's directory, each
/// through a private temporary file that is flushed and renamed into place.
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

    // MARK: - Manifest

    /// The manifest does not parse and ends before its JSON or its final newline (empty, or cut short): a sync
    /// tool may still be copying it.
    struct ManifestPending: Error {}

    /// Reads the manifest, or writes it when the folder has none; returns whether it wrote it.
    /// - Throws: `ManifestPending` for a manifest cut short; `SyncFolderError` for a manifest that is not one, or one
    ///   that needs a newer reader (the folder is then left untouched).
    func checkManifest() throws -> Bool {
        let bytes: [UInt8]
        do {
            bytes = try Self.readFile(manifestPath, limit: 1 << 20)
        } catch let error as IOError where error.code == ENOENT {
            try writeNew(manifestPath, bytes: try JSONWriter.encode(SyncFormat.manifest) + [0x0A])
            return true
        }
        func refuse(_ kind: SyncFolderError.Kind, _ reason: String) -> SyncFolderError {
            SyncFolderError(file: manifestPath, kind: kind, reason: reason)
        }
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(bytes)
        } catch let error where error.offset >= bytes.count || bytes.last != 0x0A {
            // It ends before its JSON or its final newline: a sync tool may be writing it under its final name.
            throw ManifestPending()
        } catch {
            throw refuse(.notAManifest, "is not a sync manifest (\(error))")
        }
        guard case .object(let manifest) = parsed else {
            throw refuse(.notAManifest, "is not a sync manifest (not a JSON object)")
        }
        guard case .string(let format)? = manifest["format"], format == SyncFormat.name else {
            throw refuse(.notAManifest, "is not a Marginalia sync manifest (format must be \"\(SyncFormat.name)\")")
        }
        guard case .int(let version)? = manifest["formatVersion"], version >= 1,
              case .int(let minimum)? = manifest["minReaderVersion"], minimum >= 1, minimum <= version
        else {
            throw refuse(.notAManifest, "formatVersion and minReaderVersion must be positive integers, the minimum "
                + "no greater than the version")
        }
        guard minimum <= SyncFormat.version else {
            throw refuse(.newerVersion, "the folder was written by a newer version of marginalia (sync format "
                + "\(version), readable from version \(minimum); this version reads \(SyncFormat.version)); upgrade "
                + "marginalia to sync with it; nothing was read or written")
        }
        return false
    }

    // MARK: - Listing

    /// The device directories present, by name.
    func deviceDirectories() throws -> [String] {
        try Self.list(devicesPath).filter { name in
            var info = stat()
            return !name.hasPrefix(".") && lstat("\(devicesPath)/\(name)", &info) == 0
                && info.st_mode & S_IFMT == S_IFDIR
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

    /// The size of a regular file, or nil when it is gone or not a regular file.
    static func size(of path: String) -> Int64? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    // MARK: - Writing

    /// Creates `devices/<device>/` when absent (mode 0700) and returns its path.
    func makeDirectory(for device: String) throws -> String {
        for path in [devicesPath, directory(of: device)] where mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw IOError.posix("mkdir", path: path)
        }
        try FileSync.syncDirectory(containing: directory(of: device))
        return directory(of: device)
    }

    /// Writes a new file at `path` through a private temporary file beside it (`.name….tmp`), flushed, then
    /// renamed into place; refuses to replace a file already there.
    func writeNew(_ path: String, bytes: [UInt8]) throws {
        let temporary = try TemporaryFile(beside: path, purpose: "sync")
        defer { temporary.remove() }
        let descriptor = try temporary.openForWriting()
        do {
            try bytes.withUnsafeBytes { try SystemIO.writeAll(descriptor, $0, path: temporary.path) }
            try SystemIO.close(descriptor, path: temporary.path)
        } catch {
            try? SystemIO.close(descriptor, path: temporary.path)
            throw error
        }
        guard Self.size(of: path) == nil else {
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
