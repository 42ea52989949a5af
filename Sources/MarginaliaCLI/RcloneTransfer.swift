import Foundation
import Marginalia

/// The transfers of `sync --remote REMOTE:PATH`: Debian's `rclone`, run as a child process, moves the folder's
/// files between the remote (an S3 bucket, a WebDAV server, any of rclone's remotes, configured the rclone way) and
/// the local mirror the round runs on. The tool holds no credential and speaks no network protocol itself.
///
/// Pull: `rclone sync REMOTE/devices MIRROR/devices` for every other device's directory (compared by checksum where
/// the remote has one, else by size), then `rclone copy --ignore-existing` of this device's own directory (the
/// mirror's own files are never replaced nor removed); names beginning with `.` are never pulled. Push: one listing
/// of this device's directory, then each file sent under a temporary name (`.NAME.partial`) and moved into place on
/// the server, so that an upload cut short is never read as a whole file; a segment or key file already there is
/// never replaced (the same size: sent before; another: refused); then `deletefile` for each segment the round
/// folded into another. Every path sent or removed lies inside `devices/<this device>/`.
final class RcloneTransfer: SyncTransfer {
    /// The remote folder, `REMOTE:PATH`, without a trailing `/`.
    let remote: String
    let retries: Int
    let lowLevelRetries: Int
    /// The rclone binary.
    let executable: String
    /// This store's device ids: the files pushed must lie in their directories.
    let ownDevices: () -> Set<String>
    /// What the transfers moved, for the report.
    private(set) var received = Traffic()
    private(set) var sent = Traffic()
    private(set) var removed = 0

    /// Files and bytes moved one way.
    struct Traffic {
        var files = 0
        var bytes: Int64 = 0
    }

    init(remote: String, retries: Int, lowLevelRetries: Int, ownDevices: @escaping () -> Set<String>) throws {
        guard let colon = remote.firstIndex(of: ":"), colon != remote.startIndex,
              !remote.hasPrefix("-"), !remote.contains("\n") else {
            throw ToolError("--remote takes an rclone remote and a path, REMOTE:PATH (e.g. s3:bucket/marginalia); "
                + "configure the remote with 'rclone config' or RCLONE_CONFIG_<NAME>_… variables")
        }
        var trimmed = remote
        while trimmed.hasSuffix("/") && !trimmed.hasSuffix(":/") { trimmed.removeLast() }
        self.remote = trimmed
        self.retries = retries
        self.lowLevelRetries = lowLevelRetries
        self.ownDevices = ownDevices
        guard let executable = Self.find() else {
            throw RemoteError(.missingTool, "rclone is not installed (sync --remote runs it): install it "
                + "(Debian: apt-get install rclone) or name it with MARGINALIA_RCLONE")
        }
        self.executable = executable
    }

    /// `$MARGINALIA_RCLONE`, else `rclone` on `$PATH`.
    static func find() -> String? {
        let environment = ProcessInfo.processInfo.environment
        if let named = environment["MARGINALIA_RCLONE"], !named.isEmpty {
            return FileManager.default.isExecutableFile(atPath: named) ? named : nil
        }
        for directory in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/rclone"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// The remote path of `relative` (a path inside the folder).
    func remotePath(_ relative: String) -> String {
        remote.hasSuffix(":") || remote.hasSuffix("/") ? remote + relative : "\(remote)/\(relative)"
    }

    // MARK: - SyncTransfer

    func pull(into mirror: String, device: String) throws {
        let devices = "\(mirror)/devices"
        try FileManager.default.createDirectory(atPath: "\(devices)/\(device)", withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let before = Self.listing(devices)
        do {
            // No file larger than a round reads (1 GiB): one planted there would only fill the mirror's disk.
            try run(["sync", remotePath("devices"), devices, "--checksum", "--max-size", "1G",
                     "--exclude", "/\(device)/**", "--exclude", ".*", "--exclude", ".*/**"],
                    step: "pull the other devices' files")
            try run(["copy", remotePath("devices/\(device)"), "\(devices)/\(device)", "--ignore-existing",
                     "--exclude", ".*"], step: "pull this device's own files")
        } catch let error as RemoteError where error.kind == .notFound {
            // A remote folder nothing was written to yet: this round starts it.
        }
        let after = Self.listing(devices)
        for (path, file) in after {
            if let old = before[path], old.size == file.size, old.modified == file.modified { continue }
            received.files += 1
            received.bytes += file.size
        }
    }

    func push(_ files: SyncTransferFiles, from mirror: String) throws {
        let own = ownDevices()
        for path in files.written + files.removed {
            let parts = path.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0] == "devices", own.contains(String(parts[1])),
                  !parts[2].isEmpty, !parts[2].hasPrefix(".") else {
                throw RemoteError(.failed, "will not send \(path): it is outside this device's directory")
            }
        }
        // What this device's directories hold on the remote now: one listing of each.
        var present: [String: Int64] = [:]
        for directory in Set(files.written.map { ($0 as NSString).deletingLastPathComponent }) {
            present.merge(try list(directory)) { first, _ in first }
        }
        for path in files.written {
            let size = Self.size("\(mirror)/\(path)")
            if Self.isImmutable(path), let there = present[path] {
                // Sent whole by an earlier push that failed later; a segment is never replaced.
                guard there == size else {
                    throw RemoteError(.differs, "could not send \(path): the remote holds another file of that "
                        + "name (\(there) bytes, not \(size)), and a segment is never replaced there; remove it "
                        + "from the remote if this device did not write it")
                }
                continue
            }
            // Under a temporary name first, then moved into place on the server: a reader never takes a file cut
            // short by a failed upload for a whole one (WebDAV servers keep what a broken PUT sent).
            let name = (path as NSString).lastPathComponent
            let temporary = "\((path as NSString).deletingLastPathComponent)/.\(name).partial"
            try run(["copyto", "\(mirror)/\(path)", remotePath(temporary), "--ignore-times"], step: "send \(path)")
            try run(["moveto", remotePath(temporary), remotePath(path)], step: "put \(path) in place")
            sent.files += 1
            sent.bytes += size
        }
        for path in files.removed {
            do {
                try run(["deletefile", remotePath(path)], step: "remove \(path), folded into another segment")
            } catch let error as RemoteError where error.kind == .notFound {
                // Already gone.
            }
            removed += 1
        }
    }

    /// The files of `directory` (a path inside the folder) on the remote, by path inside the folder, with their
    /// sizes; none when the remote has no such directory.
    func list(_ directory: String) throws -> [String: Int64] {
        let output: String
        do {
            output = try run(["lsjson", remotePath(directory), "--files-only"], step: "list \(directory)")
        } catch let error as RemoteError where error.kind == .notFound {
            return [:]
        }
        guard let entries = try? JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] else {
            throw RemoteError(.failed, "could not list \(directory) on \(remote): rclone's listing does not read")
        }
        var files: [String: Int64] = [:]
        for entry in entries {
            if let name = entry["Path"] as? String, let size = (entry["Size"] as? NSNumber)?.int64Value {
                files["\(directory)/\(name)"] = size
            }
        }
        return files
    }

    /// Segments and epoch key files are written once under a new name: never replaced on the remote.
    static func isImmutable(_ path: String) -> Bool {
        let name = (path as NSString).lastPathComponent
        return name.hasSuffix(".jsonl.gz") || name.hasPrefix("keys-")
    }

    // MARK: - Running rclone

    /// Runs `rclone ARGS` with the retries and timeouts of this transfer; what it printed on stdout.
    /// - Throws: `RemoteError` naming `step` and what went wrong, never with rclone's own words unfiltered.
    @discardableResult
    private func run(_ arguments: [String], step: String) throws -> String {
        let common = ["--retries", String(retries), "--low-level-retries", String(lowLevelRetries),
                      "--contimeout", "15s", "--timeout", "60s", "--log-level", "ERROR", "--stats", "0"]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments + common
        let errors = try Self.scratchFile()
        let output = try Self.scratchFile()
        defer {
            try? FileManager.default.removeItem(atPath: errors.path)
            try? FileManager.default.removeItem(atPath: output.path)
        }
        process.standardError = errors.handle
        process.standardOutput = output.handle
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw RemoteError(.missingTool, "cannot run \(executable): \(error)")
        }
        process.waitUntilExit()
        try? errors.handle.close()
        try? output.handle.close()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let text = (try? String(contentsOfFile: errors.path, encoding: .utf8)) ?? ""
            throw RemoteError(status: process.terminationReason == .exit ? process.terminationStatus : -1,
                              stderr: text, step: step, remote: remote)
        }
        return (try? String(contentsOfFile: output.path, encoding: .utf8)) ?? ""
    }

    /// A new file in the temporary directory, readable by its owner only, open for writing.
    private static func scratchFile() throws -> (path: String, handle: FileHandle) {
        let directory = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let path = "\(directory)/marginalia-rclone-\(UUID().uuidString).log"
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw ToolError("cannot make a temporary file in \(directory)")
        }
        return (path, handle)
    }

    /// Every regular file under `directory`, by relative path, with its size and modification time.
    static func listing(_ directory: String) -> [String: (size: Int64, modified: Date)] {
        var files: [String: (size: Int64, modified: Date)] = [:]
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return files }
        while let relative = walker.nextObject() as? String {
            guard let attributes = walker.fileAttributes, attributes[.type] as? FileAttributeType == .typeRegular
            else { continue }
            files[relative] = ((attributes[.size] as? NSNumber)?.int64Value ?? 0,
                               attributes[.modificationDate] as? Date ?? .distantPast)
        }
        return files
    }

    static func size(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }
}
