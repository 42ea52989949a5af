#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A local mirror of a sync folder kept on storage the library does not reach (`SyncTransfer`): the files of one
/// round to send, remembered until they are sent, and a lock so that one remote round at a time uses the mirror.
///
///     MIRROR/devices/…                  the folder, as pulled, with what this store's rounds wrote
///     MIRROR/.marginalia-unsent.json    what this store wrote or removed and has not sent yet, when a push failed
struct SyncMirror {
    /// The file that remembers what a failed push did not send.
    static let unsentName = ".marginalia-unsent.json"

    let root: String

    /// The mirror at `path`, made (readable by its owner only) when missing.
    init(path: String) throws {
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw MarginaliaError(category: .io, reason: .other(
                "cannot make the sync mirror \(path): \(String(cString: strerror(errno)))"))
        }
        root = try SyncFolder(path: path).root
    }

    /// Takes the lock on the mirror, waiting while another remote round of any store holds it.
    func lock() throws -> FolderLock {
        try FolderLock(directory: root)
    }

    // MARK: - What is not sent yet

    var unsentPath: String { "\(root)/\(Self.unsentName)" }

    /// What earlier rounds wrote or removed and did not send; empty when everything was sent. A file it lists
    /// that is no longer in the mirror is not sent.
    /// - Throws: `MarginaliaError` `.invalidData` for a file that does not read as such a list.
    func unsent() throws -> SyncTransferFiles {
        let bytes: [UInt8]
        do {
            bytes = try SyncFolder.readFile(unsentPath, limit: SyncFormat.maxSmallFileBytes * 64)
        } catch let error as IOError where error.code == ENOENT {
            return SyncTransferFiles()
        }
        func paths(_ value: JSONValue?) -> [String]? {
            guard case .array(let values)? = value else { return nil }
            let paths = values.compactMap { value -> String? in
                guard case .string(let path) = value, Self.isOwnPath(path) else { return nil }
                return path
            }
            return paths.count == values.count ? paths : nil
        }
        guard case .object(let object)? = try? JSONParser.parse(bytes),
              let written = paths(object["written"]), let removed = paths(object["removed"]) else {
            throw MarginaliaError(category: .invalidData, reason: .other(
                "\(unsentPath) does not read as the list of files this store has not sent yet; remove it to send "
                    + "nothing of earlier rounds again"))
        }
        let present = written.filter { SyncFolder.info("\(root)/\($0)")?.kind == .regular }
        return SyncTransferFiles(written: present.sorted(), removed: removed.sorted())
    }

    /// Remembers `files` as not sent; forgets the list when it is empty.
    func setUnsent(_ files: SyncTransferFiles) throws {
        guard !files.isEmpty else {
            if unlink(unsentPath) != 0 && errno != ENOENT { throw IOError.posix("unlink", path: unsentPath) }
            return
        }
        let object = JSONValue.object(JSONObject([
            ("written", .array(files.written.map(JSONValue.string))),
            ("removed", .array(files.removed.map(JSONValue.string))),
        ]))
        try SyncFolder(path: root).replace(unsentPath, bytes: try JSONWriter.encode(object) + [0x0A])
    }

    /// Whether `path` is a relative path of a file in a device directory: `devices/<id>/<name>`, no `.` or `..`.
    static func isOwnPath(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 3 && parts[0] == Substring(SyncFormat.devicesDirectory)
            && parts.dropFirst().allSatisfy { !$0.isEmpty && !$0.hasPrefix(".") }
    }

    // MARK: - What a round wrote

    /// The files of `devices/<device>/` in the mirror (not the temporary ones), by path relative to the mirror.
    func files(of device: String) throws -> [String: SyncFolder.FileInfo] {
        let directory = "\(root)/\(SyncFormat.devicesDirectory)/\(device)"
        guard SyncFolder.info(directory)?.kind == .directory else { return [:] }
        var files: [String: SyncFolder.FileInfo] = [:]
        for name in try SyncFolder.list(directory) where !name.hasPrefix(".") {
            if let info = SyncFolder.info("\(directory)/\(name)"), info.kind == .regular {
                files["\(SyncFormat.devicesDirectory)/\(device)/\(name)"] = info
            }
        }
        return files
    }

    /// What changed between two listings of this store's directories: files new or changed, files gone.
    static func changes(from before: [String: SyncFolder.FileInfo],
                        to after: [String: SyncFolder.FileInfo]) -> SyncTransferFiles {
        let written = after.filter { before[$0.key] != $0.value }.keys.sorted()
        let removed = before.keys.filter { after[$0] == nil }.sorted()
        return SyncTransferFiles(written: written, removed: removed)
    }
}
