import Foundation
import MarginaliaTestSupport
import Testing

/// `sync --remote` against real servers on loopback, through Debian's rclone: moto's S3 server with a key per device
/// scoped by IAM to that device's prefix, and wsgidav's WebDAV server, each behind the fault-injecting proxy
/// (`scripts/fault_proxy.py`: resets, truncated and delayed responses). Each test is seeded and prints its seed.
@Suite(.serialized, .enabled(if: hasRemoteServers || remoteTestsRequired)) struct RemoteServerTests {
    static let passage = "mai-am-un-singur-dor.1"

    /// The proxy in front of `target`, dealing at most `faults` faults after the first `after` connections.
    static func proxy(to target: LoopbackServer, seed: UInt64, faults: Int, after: Int = 0) throws -> LoopbackServer {
        try LoopbackServer("fault proxy", "/usr/bin/python3", { port in
            ["\(scriptsDirectory)/fault_proxy.py", "--listen", "127.0.0.1:\(port)",
             "--target", "127.0.0.1:\(target.port)", "--seed", String(seed), "--reset", "0.15",
             "--truncate", "0.1", "--delay", "0.1", "--max-delay", "1", "--faults-after", String(after),
             "--only-first", String(faults)]
        })
    }

    /// Stops the proxy and counts the faults it dealt that fired (a reset or truncation whose connection ended
    /// first never fires).
    static func faultsFired(_ proxy: LoopbackServer) -> Int {
        let lines = proxy.stop().split(separator: "\n")
        let dealt = lines.filter { $0.contains(": reset at") || $0.contains(": truncate at") }.count
        return dealt - lines.filter { $0.contains("never fired") }.count
    }

    /// Rounds on `stores` until two passes of rounds in a row succeed on all of them (the first carries each
    /// store's changes to the storage, the second to every store); a round the faults broke (exit 69 or 75) is run
    /// again. Returns how many rounds failed.
    static func converge(_ remote: RemoteWorkspace, _ stores: [String], folder: String,
                         environment: (String) -> [String: String]) throws -> Int {
        var failed = 0
        var cleanPasses = 0
        for _ in 0..<10 {
            var clean = true
            for store in stores {
                let result = try remote.run(store, ["sync", "--remote", folder, "--retries", "2"],
                                            environment: environment(store))
                guard result.status != 0 else { continue }
                #expect([69, 75].contains(result.status), "\(result.stderr)")
                failed += 1
                clean = false
            }
            cleanPasses = clean ? cleanPasses + 1 : 0
            if cleanPasses == 2 { return failed }
        }
        Issue.record("the rounds did not succeed in two passes in a row")
        return failed
    }

    @Test func threeStoresConvergeThroughMotosS3WithAKeyPerDeviceAndResetsOnTheWay() throws {
        #expect(hasRemoteServers, "rclone, moto_server and wsgidav must be installed (see .ci/run)")
        guard hasRemoteServers else { return }
        let seed = UInt64.random(in: 1...1_000_000)
        print("RemoteServerTests S3 seed: \(seed)")
        let remote = RemoteWorkspace(workspace: try CLIWorkspace())
        let stores = try ["laptop", "phone", "tablet"].map { try remote.workspace.newStore("\($0).db") }
        for (index, store) in stores.enumerated() {
            try remote.ok(store, ["note", Self.passage, "nota \(index)"])
        }
        let ids = try stores.map { try remote.id(of: $0) }
        let moto = try LoopbackServer("moto", "\(testVenv)/bin/moto_server", { ["-H", "127.0.0.1", "-p", "\($0)"] })
        let setup = try ChildProcess("\(testVenv)/bin/python", ["\(scriptsDirectory)/moto_s3.py", "--endpoint",
            "http://127.0.0.1:\(moto.port)", "--bucket", "notes"] + ids.flatMap { ["--device", $0] }).run()
        #expect(setup.status == 0, "\(setup.stderr)")
        let keys = try #require(try setup.json() as? [String: Any])["devices"] as? [String: [String: String]]
        let credentials = try #require(keys)
        let proxy = try Self.proxy(to: moto, seed: seed, faults: 12)
        func environment(_ store: String, endpoint port: Int) -> [String: String] {
            let key = credentials[ids[stores.firstIndex(of: store) ?? 0]] ?? [:]
            return ["RCLONE_CONFIG_S3_TYPE": "s3", "RCLONE_CONFIG_S3_PROVIDER": "Other",
                    "RCLONE_CONFIG_S3_ENDPOINT": "http://127.0.0.1:\(port)", "RCLONE_CONFIG_S3_REGION": "us-east-1",
                    "RCLONE_CONFIG_S3_NO_CHECK_BUCKET": "true",
                    "RCLONE_CONFIG_S3_ACCESS_KEY_ID": key["access_key_id"] ?? "",
                    "RCLONE_CONFIG_S3_SECRET_ACCESS_KEY": key["secret_access_key"] ?? ""]
        }
        let folder = "s3:notes"
        let direct = { (store: String) in environment(store, endpoint: moto.port) }
        let faulty = { (store: String) in environment(store, endpoint: proxy.port) }
        var printed = ""
        try remote.round(stores[0], folder, environment: direct(stores[0]))
        for store in stores.dropFirst() { try remote.admit(store, by: stores[0], remote: folder, environment: direct) }
        for (index, store) in stores.enumerated() {
            try remote.ok(store, ["note", Self.passage, "prin s3 \(index)"])
        }
        // Through the proxy: resets and truncated responses, retried by rclone or by the next round.
        let failed = try Self.converge(remote, stores, folder: folder, environment: faulty)
        print("RemoteServerTests S3: \(failed) rounds broken by faults, seed \(seed)")
        let expected = (0..<3).flatMap { ["nota \($0)", "prin s3 \($0)"] }.sorted()
        for store in stores {
            #expect(try remote.notes(store) == expected, "seed \(seed), \(store)")
            #expect(try remote.ok(store, ["verify"]).contains("ok"))
        }
        // An idle round through the server lists and downloads nothing new.
        for store in stores {
            let report = try remote.round(store, folder, environment: direct(store))
            let moved = try #require(report["remote"] as? [String: Any])
            #expect((moved["received"] as? [String: Any])?["files"] as? Int == 0, "\(moved)")
            #expect((moved["sent"] as? [String: Any])?["files"] as? Int == 0, "\(moved)")
        }
        // A store given another device's key cannot write in its own prefix: refused, named, exit 77; its new
        // segment waits in the mirror and is sent once it has its own key again.
        try remote.ok(stores[2], ["note", Self.passage, "cu cheia greșită"])
        let wrongKey = environment(stores[0], endpoint: moto.port)
        let refused = try remote.run(stores[2], ["sync", "--remote", folder], environment: wrongKey)
        #expect(refused.status == 77, "\(refused.stderr)")
        #expect(refused.stderr.contains("refused this device's credentials or this path"), "\(refused.stderr)")
        printed += refused.stdout + refused.stderr
        let sent = try remote.run(stores[2], ["sync", "--remote", folder], environment: direct(stores[2]))
        #expect(sent.status == 0, "\(sent.stderr)")
        printed += sent.stdout + sent.stderr
        try remote.round(stores[0], folder, environment: direct(stores[0]))
        #expect(try remote.notes(stores[0]).contains("cu cheia greșită"))
        // A device's key writes nowhere but its own prefix (the server's word, through rclone).
        let scratch = remote.workspace.path("scratch.txt")
        try Data("x".utf8).write(to: URL(fileURLWithPath: scratch))
        let elsewhere = try ChildProcess(try #require(rclonePath), ["copyto", scratch,
            "s3:notes/devices/\(ids[1])/planted.txt", "--retries", "1", "--low-level-retries", "1"],
            environment: remote.environment(direct(stores[0]))).run()
        #expect(elsewhere.status != 0 && elsewhere.stderr.contains("AccessDenied"), "\(elsewhere.stderr)")
        // No credential was ever printed.
        for key in credentials.values {
            for secret in [key["secret_access_key"], key["access_key_id"]].compactMap({ $0 }) {
                #expect(!printed.contains(secret))
            }
        }
        let fired = Self.faultsFired(proxy)
        print("RemoteServerTests S3: \(fired) resets and truncations fired, seed \(seed)")
        #expect(fired > 0, "seed \(seed)")
    }

    @Test func threeStoresConvergeThroughWebDAVWithTruncatedResponsesOnTheWay() throws {
        #expect(hasRemoteServers, "rclone, moto_server and wsgidav must be installed (see .ci/run)")
        guard hasRemoteServers else { return }
        let seed = UInt64.random(in: 1...1_000_000)
        print("RemoteServerTests WebDAV seed: \(seed)")
        let remote = RemoteWorkspace(workspace: try CLIWorkspace())
        let root = remote.workspace.path("dav")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let dav = try LoopbackServer("wsgidav", "\(testVenv)/bin/wsgidav", {
            ["--host", "127.0.0.1", "--port", "\($0)", "--root", root, "--auth", "anonymous", "--no-config"]
        })
        let proxy = try Self.proxy(to: dav, seed: seed, faults: 12)
        func environment(_ port: Int) -> [String: String] {
            ["RCLONE_CONFIG_DAV_TYPE": "webdav", "RCLONE_CONFIG_DAV_URL": "http://127.0.0.1:\(port)",
             "RCLONE_CONFIG_DAV_VENDOR": "other"]
        }
        let folder = "dav:marginalia"
        let stores = try ["laptop", "phone", "tablet"].map { try remote.workspace.newStore("\($0).db") }
        for (index, store) in stores.enumerated() {
            try remote.ok(store, ["note", Self.passage, "nota \(index)"])
        }
        try remote.round(stores[0], folder, environment: environment(dav.port))
        for store in stores.dropFirst() {
            try remote.admit(store, by: stores[0], remote: folder) { _ in environment(dav.port) }
        }
        for (index, store) in stores.enumerated() {
            try remote.ok(store, ["note", Self.passage, "prin webdav \(index)"])
        }
        let failed = try Self.converge(remote, stores, folder: folder) { _ in environment(proxy.port) }
        print("RemoteServerTests WebDAV: \(failed) rounds broken by faults, seed \(seed)")
        let expected = (0..<3).flatMap { ["nota \($0)", "prin webdav \($0)"] }.sorted()
        for store in stores {
            #expect(try remote.notes(store) == expected, "seed \(seed), \(store)")
            #expect(try remote.ok(store, ["verify"]).contains("ok"))
        }
        // No temporary upload is left on the server, and no file outside the devices' directories.
        let left = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? [])
        #expect(left.allSatisfy { $0 == "marginalia" || $0.hasPrefix("marginalia/devices") }, "\(left)")
        #expect(!left.contains { $0.hasSuffix(".partial") }, "\(left)")
        let fired = Self.faultsFired(proxy)
        print("RemoteServerTests WebDAV: \(fired) resets and truncations fired, seed \(seed)")
        #expect(fired > 0, "seed \(seed)")
    }
}
