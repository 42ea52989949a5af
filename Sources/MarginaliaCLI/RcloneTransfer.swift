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

/// What went wrong with a remote, in words a person can act on; rclone's own output is kept out (it can name
/// credentials), but for the lines that say what failed, with anything like a secret taken out.
struct RemoteError: Error, CustomStringConvertible {
    enum Kind: Equatable {
        /// The remote cannot be reached (offline, refused connection, timeout).
        case offline
        /// The remote refused this device's credentials or this path.
        case denied
        /// The remote is full or over its quota.
        case quota
        /// No such remote, bucket or path.
        case notFound
        /// The remote is not configured in rclone.
        case unknownRemote
        /// rclone is not installed.
        case missingTool
        /// A file of this device on the remote differs from the mirror's, and segments are never replaced.
        case differs
        /// Anything else rclone reported.
        case failed

        /// The tool's exit status (sysexits.h).
        var exitStatus: Int32 {
            switch self {
            case .offline: 69  // EX_UNAVAILABLE
            case .denied: 77  // EX_NOPERM
            case .quota: 73  // EX_CANTCREAT
            case .notFound: 66  // EX_NOINPUT
            case .unknownRemote: 78  // EX_CONFIG
            case .missingTool: 69
            case .differs: 65  // EX_DATAERR
            case .failed: 75  // EX_TEMPFAIL
            }
        }
    }

    let kind: Kind
    let description: String

    init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    /// The error rclone's exit `status` and standard error stand for, during `step`: told by whole phrases, never
    /// by a bare number (a port or a request id may hold "507" or "403").
    init(status: Int32, stderr: String, step: String, remote: String) {
        let text = stderr.lowercased()
        func has(_ words: String...) -> Bool { words.contains { text.contains($0) } }
        let kind: Kind
        if has("didn't find section in config", "not found in config file", "config file not found") {
            kind = .unknownRemote
        } else if has("immutable file modified") {
            kind = .differs
        } else if has("accessdenied", "access denied", "403 forbidden", "forbidden", "signaturedoesnotmatch",
                      "invalidaccesskeyid", "401 unauthorized", "unauthorized", "authentication") {
            kind = .denied
        } else if has("quotaexceeded", "quota exceeded", "over quota", "insufficient storage", "no space left",
                      "entitytoolarge") {
            kind = .quota
        } else if status == 3 || status == 4
                    || has("nosuchbucket", "directory not found", "object not found", "doesn't exist") {
            kind = .notFound
        } else if has("connection refused", "no such host", "network is unreachable", "i/o timeout",
                      "timeout", "connection reset", "unexpected eof", "tls handshake", "dial tcp") {
            kind = .offline
        } else {
            kind = .failed
        }
        let said = Self.filtered(stderr)
        let what: String
        switch kind {
        case .offline: what = "\(remote) cannot be reached (offline, or the server is down)"
        case .denied: what = "\(remote) refused this device's credentials or this path"
        case .quota: what = "\(remote) is full or over its quota"
        case .notFound: what = "\(remote) has no such bucket, folder or file"
        case .unknownRemote: what = "no rclone remote \(remote.prefix { $0 != ":" }) is configured "
            + "('rclone config', or RCLONE_CONFIG_<NAME>_… variables)"
        case .missingTool: what = "rclone could not run"
        case .differs: what = "a file of this device on \(remote) differs from the one in the mirror, and "
            + "segments are never replaced there"
        case .failed: what = "rclone failed (exit \(status))"
        }
        self.init(kind, "could not \(step): \(what)" + (said.isEmpty ? "" : " — rclone said: \(said)"))
    }

    /// The last lines of rclone's standard error that say what failed, each cut to 200 characters, with every line
    /// that could carry a credential left out.
    static func filtered(_ stderr: String) -> String {
        let secretish = ["secret", "password", "pass=", "token", "key_id", "access_key", "authorization",
                         "credential", "bearer", "signature="]
        let lines = stderr.split(separator: "\n").map(String.init).filter { line in
            let lower = line.lowercased()
            return !line.isEmpty && !secretish.contains { lower.contains($0) }
        }
        return lines.suffix(2).map { line in
            let kept = line.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }
            return String(String.UnicodeScalarView(kept).prefix(200))
        }.joined(separator: " / ")
    }
}
