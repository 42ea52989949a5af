import Foundation
import MarginaliaTestSupport
import Testing

/// Debian's rclone, when installed (`.ci/run` installs it).
let rclonePath = ["/usr/bin/rclone", "/usr/local/bin/rclone"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// A person's stores syncing through rclone remotes (`sync --remote`), each with its mirror beside it.
final class RemoteWorkspace {
    let workspace: CLIWorkspace
    /// The environment rclone is given: the workspace's, without any `AWS_*` or `RCLONE_*` variable of the
    /// machine's (an `AWS_CA_BUNDLE` breaks rclone's S3 backend), with `remote`'s own.
    var remoteEnvironment: [String: String] = [:]

    init(workspace: CLIWorkspace) {
        self.workspace = workspace
    }

    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = workspace.environment(remoteEnvironment.merging(extra) { _, new in new })
        for key in environment.keys where key.hasPrefix("AWS_") || (key.hasPrefix("RCLONE_")
            && remoteEnvironment[key] == nil && extra[key] == nil) {
            environment[key] = nil
        }
        return environment
    }

    /// `marginalia --store STORE ARGS`.
    func run(_ store: String, _ arguments: [String], environment extra: [String: String] = [:]) throws -> CLIResult {
        try ChildProcess(CLIWorkspace.binary, ["--store", store] + arguments, environment: environment(extra)).run()
    }

    /// `run` for a command that must succeed: its stdout.
    @discardableResult
    func ok(_ store: String, _ arguments: [String], environment extra: [String: String] = [:]) throws -> String {
        let result = try run(store, arguments, environment: extra)
        guard result.status == 0 else { throw CLIFailure(result: result) }
        return result.stdout
    }

    /// One `sync --remote REMOTE --json` round of `store`: its report.
    @discardableResult
    func round(_ store: String, _ remote: String, environment extra: [String: String] = [:]) throws
        -> [String: Any] {
        let output = try ok(store, ["--json", "sync", "--remote", remote], environment: extra)
        return try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
    }

    /// The device id of `store`.
    func id(of store: String) throws -> String {
        let line = try #require(try ok(store, ["device"]).split(separator: "\n").first { $0.hasPrefix("device ") })
        return String(line.dropFirst("device ".count))
    }

    /// Admits `store` to the roster of `member` through `remote`: invitation, join, then a round on each side and
    /// one more on the store.
    func admit(_ store: String, by member: String, remote: String, environment: (String) -> [String: String])
        throws {
        let invitation = workspace.path("invitation-\(UUID().uuidString).json")
        try ok(member, ["device", "invite", invitation])
        try ok(store, ["device", "join", invitation])
        try round(store, remote, environment: environment(store))
        try round(member, remote, environment: environment(member))
        try round(store, remote, environment: environment(store))
    }

    /// The notes `store` lists.
    func notes(_ store: String) throws -> [String] {
        let listed = try #require(try JSONSerialization.jsonObject(
            with: Data(ok(store, ["list", "--json"]).utf8)) as? [[String: Any]])
        return listed.compactMap { $0["note"] as? String }.sorted()
    }
}

@Suite(.enabled(if: rclonePath != nil)) struct RemoteSyncCLITests {
    /// Every regular file under `directory` with its bytes, by relative path.
    static func files(in directory: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for relative in FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? [] {
            var isDirectory: ObjCBool = false
            let path = "\(directory)/\(relative)"
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[relative] = try Data(contentsOf: URL(fileURLWithPath: path))
            }
        }
        return files
    }

    @Test func threeStoresConvergeThroughALocalRemoteAndEachWritesOnlyItsOwnDirectory() throws {
        let remote = RemoteWorkspace(workspace: try CLIWorkspace())
        remote.remoteEnvironment = ["RCLONE_CONFIG_LOC_TYPE": "local"]
        let storage = remote.workspace.path("storage")
        let folder = "loc:\(storage)/marginalia"
        let stores = try ["laptop", "phone", "tablet"].map { try remote.workspace.newStore("\($0).db") }
        for (index, store) in stores.enumerated() { try remote.ok(store, ["note", "mai-am-un-singur-dor.1", "nota \(index)"]) }
        try remote.round(stores[0], folder)
        for store in stores.dropFirst() { try remote.admit(store, by: stores[0], remote: folder) { _ in [:] } }
        for _ in 0..<2 {
            for store in stores {
                let id = try remote.id(of: store)
                let before = try Self.files(in: "\(storage)/marginalia")
                try remote.round(store, folder)
                let after = try Self.files(in: "\(storage)/marginalia")
                for (path, bytes) in before where !path.hasPrefix("devices/\(id)/") {
                    #expect(after[path] == bytes, "\(path) changed by another device's round")
                }
                #expect(after.keys.filter { !$0.hasPrefix("devices/\(id)/") && before[$0] == nil }.isEmpty)
            }
        }
        for store in stores {
            #expect(try remote.notes(store) == ["nota 0", "nota 1", "nota 2"])
            #expect(try remote.ok(store, ["verify"]).contains("ok"))
            // The mirror lies beside the store, readable by its owner only.
            let mirrors = try FileManager.default.contentsOfDirectory(atPath: remote.workspace.directory.path)
                .filter { $0.hasPrefix((store as NSString).lastPathComponent + ".mirror-") }
            #expect(mirrors.count == 1)
            let mode = try FileManager.default.attributesOfItem(
                atPath: remote.workspace.path(try #require(mirrors.first)))[.posixPermissions] as? Int
            #expect(mode == 0o700)
        }
        // An idle round moves nothing either way.
        for store in stores {
            let report = try remote.round(store, folder)
            let moved = try #require(report["remote"] as? [String: Any])
            #expect((moved["received"] as? [String: Any])?["files"] as? Int == 0, "\(moved)")
            #expect((moved["sent"] as? [String: Any])?["files"] as? Int == 0, "\(moved)")
        }
    }

    @Test func aRemoteThatCannotBeUsedIsNamedWithItsOwnExitStatusAndChangesNothing() throws {
        let remote = RemoteWorkspace(workspace: try CLIWorkspace())
        let store = remote.workspace.store
        try remote.ok(store, ["init"])
        try remote.ok(store, ["note", "mai-am-un-singur-dor.1", "una"])
        let head = try remote.ok(store, ["log", "--json"])
        let unknown = try remote.run(store, ["sync", "--remote", "nowhere:marginalia"])
        #expect(unknown.status == 78, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("no rclone remote nowhere is configured"), "\(unknown.stderr)")
        let missing = try remote.run(store, ["sync", "--remote", "nowhere:marginalia"],
                                     environment: ["MARGINALIA_RCLONE": "/nonexistent/rclone"])
        #expect(missing.status == 69 && missing.stderr.contains("rclone is not installed"), "\(missing.stderr)")
        let both = try remote.run(store, ["sync", remote.workspace.path("Sync"), "--remote", "loc:x"])
        #expect(both.status == 64 && both.stderr.contains("not both"), "\(both.stderr)")
        let stray = try remote.run(store, ["sync", remote.workspace.path("Sync"), "--mirror", "x"])
        #expect(stray.status == 64 && stray.stderr.contains("go with --remote"), "\(stray.stderr)")
        let bare = try remote.run(store, ["sync", "--remote", "no-colon"])
        #expect(bare.status == 64 || bare.status == 1, "\(bare.stderr)")
        #expect(bare.stderr.contains("REMOTE:PATH"), "\(bare.stderr)")
        #expect(try remote.ok(store, ["log", "--json"]) == head)
    }
}
