import Foundation
import MarginaliaTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `restore` through the binary: exact or refused, with other processes using the store and on a full disk.
@Suite struct RestoreCLITests {
    /// A store with two annotations, a backup of it, and a third annotation the backup does not hold.
    static func storeWithBackup(_ workspace: CLIWorkspace) throws -> (backup: String, late: String) {
        try workspace.ok(["highlight", "mai-am-un-singur-dor.1", "--tag", "dor"])
        try workspace.ok(["note", "mai-am-un-singur-dor.2", "seara"])
        let backup = workspace.path("backup.jsonl.gz")
        try workspace.ok(["backup", backup])
        return (backup, try workspace.ok(["bookmark", "mai-am-un-singur-dor.3"]))
    }

    /// The ids of every annotation the log of `database` creates.
    static func createdIDs(_ workspace: CLIWorkspace, _ database: String) throws -> Set<String> {
        let result = try workspace.sqlite(database, "SELECT entity_id FROM changes WHERE op = 'create'")
        guard result.status == 0 else { throw CLIFailure(result: result) }
        return Set(result.stdout.split(separator: "\n").map(String.init))
    }

    @Test(.enabled(if: hasSQLiteShell))
    func anotherProcessWithTheStoreOpenReadsTheRestoredStore() throws {
        let workspace = try CLIWorkspace()
        let (backup, late) = try Self.storeWithBackup(workspace)
        let shell = try InteractiveSQLite(database: workspace.store)
        defer { shell.finish() }
        #expect(try shell.query("SELECT count(*) FROM annotations;") == "3")
        let restored = try workspace.run(["restore", backup])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.stdout.hasPrefix("Restored 2 changes"))
        let previous = try #require(restored.stdout.split(separator: "\n")
            .first { $0.hasPrefix("The previous store is kept at ") }?.split(separator: " ").last)
        #expect(try Self.createdIDs(workspace, String(previous)).contains(late))
        // The connection that was open all along reads the restored store, and nothing corrupt.
        #expect(try shell.query("SELECT count(*) FROM annotations;") == "2")
        #expect(try shell.query("PRAGMA integrity_check;") == "ok")
        #expect(try shell.query("SELECT count(*) FROM annotations WHERE id = '\(late)';") == "0")
        #expect(try workspace.run(["verify"]).status == 0)
    }

    @Test(.enabled(if: hasSQLiteShell))
    func writesAcknowledgedWhileRestoresRunAreInTheStoreOrABak() throws {
        let seed = TestSeed.printed(for: "writesAcknowledgedWhileRestoresRunAreInTheStoreOrABak")
        var random = SeededGenerator(seed: seed)
        let workspace = try CLIWorkspace()
        let (backup, late) = try Self.storeWithBackup(workspace)
        let acks = Acknowledgements()
        acks.add(late)
        let passages = (1...4).map { "mai-am-un-singur-dor.\($0)" }
        let plan = (0..<200).map { _ in passages[Int(random.next() % 4)] }
        let writer = DispatchGroup()
        // Each restore starts once another write has landed, while the writer goes on writing.
        let landed = DispatchSemaphore(value: 0)
        writer.enter()
        // The writer only launches processes with the workspace's paths; it reads nothing the test changes.
        let shared = UncheckedBox(workspace)
        DispatchQueue.global().async {
            let workspace = shared.value
            defer { writer.leave() }
            for passage in plan where !acks.stopped {
                // Acknowledged: the process exited 0 and printed the new id on its pipe.
                if let result = try? workspace.run(["bookmark", passage]), result.status == 0 {
                    acks.add(result.stdout.trimmingCharacters(in: .newlines))
                    landed.signal()
                }
            }
            landed.signal()
        }
        let restores = 4 + Int(random.next() % 5)
        for _ in 0..<restores {
            landed.wait()
            let result = try workspace.run(["restore", backup])
            #expect(result.status == 0, "\(result.stderr)")
        }
        acks.stop()
        writer.wait()
        var found = try Self.createdIDs(workspace, workspace.store)
        let baks = try FileManager.default.contentsOfDirectory(atPath: workspace.path(""))
            .filter { $0.hasSuffix(".bak") }
        #expect(baks.count == restores)
        for bak in baks { found.formUnion(try Self.createdIDs(workspace, workspace.path(bak))) }
        let lost = acks.ids.subtracting(found)
        print("seed \(seed): \(acks.ids.count) acknowledged writes, \(restores) restores, \(lost.count) lost")
        #expect(lost.isEmpty, "seed \(seed): \(lost.count) of \(acks.ids.count) acknowledged writes lost")
        #expect(acks.ids.count > 1)
        #expect(try workspace.run(["verify"]).status == 0)
    }

    @Test func aSymlinkedPrivateStoreStaysASymlinkAndPrivate() throws {
        let workspace = try CLIWorkspace()
        let (backup, _) = try Self.storeWithBackup(workspace)
        #expect(chmod(workspace.store, 0o600) == 0)
        let link = workspace.path("link.db")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: workspace.store)
        let result = try workspace.run(["--store", link, "restore", backup])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 3 && lines[1].hasPrefix("The previous store is kept at \(workspace.store)."))
        #expect(lines.count == 3 && lines[2].hasPrefix("This store is still device "))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == workspace.store)
        let previous = String(lines[1].split(separator: " ").last ?? "")
        for path in [workspace.store, previous] {
            var info = stat()
            #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600, "\(path)")
        }
        #expect(try workspace.run(["--store", link, "verify"]).status == 0)
    }

    @Test func aDryRunChangesNothing() throws {
        let workspace = try CLIWorkspace()
        let (backup, _) = try Self.storeWithBackup(workspace)
        let before = try workspace.bytes(workspace.store)
        let listing = try FileManager.default.contentsOfDirectory(atPath: workspace.path("")).sorted()
        let result = try workspace.run(["restore", backup, "--dry-run"])
        #expect(result.status == 0 && result.stdout.hasPrefix("Would restore 2 changes"))
        #expect(try workspace.bytes(workspace.store) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.path("")).sorted() == listing)
    }

    /// On tmpfs file systems too small for the restored store (or for its copy into the live one), restore
    /// fails without saying "Restored" and the old store verifies under its name; where it fits, it succeeds.
    @Test(.enabled(if: Tmpfs.isMountable, "cannot mount a tmpfs (that needs root with CAP_SYS_ADMIN)"))
    func restoreOntoATinyDiskIsExactOrRefused() throws {
        let workspace = try CLIWorkspace()
        // A source store of about 1.5 MB: notes of 100 kB edited over and over (the log keeps every version).
        let big = try workspace.newStore("big.db")
        let id = try workspace.ok(["note", "mai-am-un-singur-dor.1", "start", "--store", big])
        var random = SeededGenerator(seed: 7)
        for _ in 0..<7 {
            let text = String((0..<100_000).map { _ in Character(Unicode.Scalar(UInt8(97 + random.next() % 26))) })
            try workspace.ok(["edit", id, "--note", text, "--store", workspace.path("big.db")])
        }
        let backup = workspace.path("big.jsonl.gz")
        try workspace.ok(["backup", backup, "--store", workspace.path("big.db")])
        let mountPoint = workspace.path("tiny")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        var outcomes: [String] = []
        for kilobytes in [768, 1024, 1280, 1536, 1792, 2048, 3072, 8192] {
            let mount = try Tmpfs.mount(mountPoint, kilobytes: kilobytes)
            try #require(mount.status == 0, "cannot mount a tmpfs of \(kilobytes) kB: \(mount.stderr)")
            defer { Tmpfs.unmount(mountPoint) }
            let store = mountPoint + "/user.db"
            try workspace.ok(["--store", store, "init"])
            let original = try workspace.ok(["bookmark", "mai-am-un-singur-dor.2", "--store", store])
            let listed = try workspace.ok(["list", "--json", "--store", store])
            let result = try workspace.run(["restore", backup, "--store", store])
            let files = try FileManager.default.contentsOfDirectory(atPath: mountPoint)
            #expect(files.filter { $0.contains(".tmp") } == [], "\(kilobytes) kB: \(files)")
            if result.status == 0 {
                outcomes.append("\(kilobytes) kB: restored")
                #expect(result.stdout.hasPrefix("Restored 8 changes"))
                #expect(try workspace.run(["verify", "--store", store]).status == 0)
                #expect(try workspace.ok(["list", "--json", "--store", store]).contains(id))
            } else {
                // Refused while building the new store, or while copying it in (the message then names the .bak).
                outcomes.append("\(kilobytes) kB: refused" + (result.stderr.contains(".bak") ? " during the copy" : ""))
                print("\(kilobytes) kB: \(result.stderr)")
                #expect(!result.stdout.contains("Restored"), "\(kilobytes) kB: \(result.stdout)")
                #expect(!result.stderr.isEmpty)
                #expect(try workspace.run(["verify", "--store", store]).status == 0, "\(kilobytes) kB")
                #expect(try workspace.ok(["list", "--json", "--store", store]) == listed)
                #expect(listed.contains(original))
                // The space is given back: the next write succeeds.
                #expect(try workspace.run(["bookmark", "mai-am-un-singur-dor.3", "--store", store]).status == 0)
            }
        }
        print("restoreOntoATinyDiskIsExactOrRefused: \(outcomes.joined(separator: ", "))")
        #expect(outcomes.first == "768 kB: refused" && outcomes.last == "8192 kB: restored")
    }
}

private final class UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// The ids of writes that reported success, shared with the writing thread.
private final class Acknowledgements: @unchecked Sendable {
    private let lock = NSLock()
    private var acknowledged: Set<String> = []
    private var isStopped = false

    func add(_ id: String) { lock.withLock { _ = acknowledged.insert(id) } }
    func stop() { lock.withLock { isStopped = true } }
    var stopped: Bool { lock.withLock { isStopped } }
    var ids: Set<String> { lock.withLock { acknowledged } }
}

/// The stock sqlite3 shell kept running on a database, answering one query at a time.
private final class InteractiveSQLite {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer = Data()

    init(database: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [database]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
    }

    /// Runs `sql` and returns its first line of output.
    func query(_ sql: String) throws -> String {
        input.fileHandleForWriting.write(Data((sql + "\n").utf8))
        while true {
            if let newline = buffer.firstIndex(of: 0x0a) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer = Data(buffer[(newline + 1)...])
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { return String(decoding: buffer, as: UTF8.self) }
            buffer.append(chunk)
        }
    }

    func finish() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
