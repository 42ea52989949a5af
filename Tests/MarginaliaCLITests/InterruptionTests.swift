import Foundation
import Marginalia
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Interrupted work leaves nothing behind: SIGINT/SIGTERM clean up at once, a kill -9's leftovers go on the next
/// run, and a live process's temporary files are never taken.
@Suite struct InterruptionTests {
    /// A workspace whose store holds a few thousand notes: big enough that an export or backup is still running
    /// when its temporary file appears.
    static func bigWorkspace() throws -> CLIWorkspace {
        let workspace = try CLIWorkspace()
        let store = try AnnotationStore.open(path: workspace.store, access: .create)
        try store.attachContent(path: workspace.content)
        let letters = Array("abcdefghijklmnopqrstuvwxyz ăîşţ")
        // Scrambled letters (a fixed xorshift sequence) compress poorly, so the archive is about a megabyte and
        // takes a while to write.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let pool = String((0..<8_192).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return letters[Int(state % UInt64(letters.count))]
        })
        try store.batch {
            for index in 0..<3_000 {
                let start = pool.index(pool.startIndex, offsetBy: index % 7_800)
                try store.createAnnotation(.note, at: AnchorRequest(passage: "mai-am-un-singur-dor.\(index % 3 + 1)"),
                                           note: String(pool[start...].prefix(300)))
            }
        }
        return workspace
    }

    /// A running `marginalia` whose output goes to files.
    final class Running {
        let process = Process()
        let errors: URL

        init(_ workspace: CLIWorkspace, _ arguments: [String]) throws {
            process.executableURL = CLIWorkspace.binary
            process.arguments = arguments
            process.environment = workspace.environment()
            errors = URL(fileURLWithPath: workspace.path("stderr-\(UUID().uuidString).txt"))
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: errors)
            process.standardOutput = FileHandle.nullDevice
            try process.run()
        }

        var stderr: String { (try? String(contentsOf: errors, encoding: .utf8)) ?? "" }
    }

    /// The hidden temporary files and directories in `directory`.
    static func temporaries(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix(".") }.sorted()
    }

    /// Waits until a temporary file of `purpose` appears in `directory` while `running` still runs, then stops
    /// the process (SIGSTOP) so that it cannot finish before the signal under test; false if it ended first.
    static func stopOnceWriting(_ running: Running, in directory: String, purpose: String) -> Bool {
        while running.process.isRunning {
            // Only a temporary file under its own name: one still being made (`-new`) is not locked yet.
            let writing = {
                temporaries(in: directory).contains { $0.contains(".\(purpose)-") && $0.hasSuffix(".tmp") }
            }
            if writing() {
                kill(running.process.processIdentifier, SIGSTOP)
                return writing()
            }
            usleep(500)
        }
        return false
    }

    @Test(arguments: [(SIGINT, "SIGINT", Int32(130)), (SIGTERM, "SIGTERM", Int32(143))])
    func aSignalDuringExportOrBackupRemovesItsFilesAndLeavesTheTargetAsItWas(
        signal: Int32, name: String, status: Int32
    ) throws {
        let workspace = try Self.bigWorkspace()
        let out = workspace.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        let target = out + "/notes.jsonl.gz"
        try Data("an earlier file".utf8).write(to: URL(fileURLWithPath: target))
        // A full archive kept elsewhere, for the verification and the restore.
        let full = workspace.path("full.jsonl.gz")
        try workspace.ok(["export", full])
        let restored = workspace.path("restored")
        try FileManager.default.createDirectory(atPath: restored, withIntermediateDirectories: false)
        let runs: [([String], String, String)] = [
            (["export", target, "--force"], out, "export"), (["backup", target], out, "backup"),
            // verify FILE writes its scratch store in the temporary directory, not beside the archive.
            (["verify", target], workspace.path("tmp"), "scratch"),
            (["--store", restored + "/user.db", "restore", full], restored,
                                                   "restore"),
        ]
        for (command, directory, purpose) in runs {
            if command[0] == "backup" { try workspace.ok(["export", target, "--document", "none", "--force"]) }
            if command[0] == "verify" { try FileManager.default.copyItem(atPath: full, toPath: target + ".new") }
            if command[0] == "verify" { _ = rename(target + ".new", target) }
            let before = try workspace.bytes(target)
            let running = try Running(workspace, command)
            let stopped = Self.stopOnceWriting(running, in: directory, purpose: purpose)
            #expect(stopped, "\(command) ended before it could be interrupted: \(running.stderr)")
            kill(running.process.processIdentifier, signal)
            kill(running.process.processIdentifier, SIGCONT)
            running.process.waitUntilExit()
            #expect(running.process.terminationReason == .exit)
            #expect(running.process.terminationStatus == status, "\(command)")
            #expect(running.stderr == "Error: interrupted by \(name); nothing was changed\n", "\(command)")
            #expect(Self.temporaries(in: out) == [], "\(command)")
            let leftInRestored = (try? FileManager.default.contentsOfDirectory(atPath: restored)) ?? []
            #expect(leftInRestored == [], "\(command) left \(leftInRestored)")
            #expect(Self.temporaries(in: workspace.directory.path).filter { $0.contains(".tmp") } == [])
            #expect(try workspace.bytes(target) == before, "\(command)")
        }
        try workspace.ok(["verify"])
    }

    @Test func aKilledExportsTemporaryFileIsRemovedByTheNextRunButALiveOnesIsNot() throws {
        let workspace = try Self.bigWorkspace()
        let out = workspace.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        let running = try Running(workspace, ["export", out + "/notes.jsonl.gz"])
        #expect(Self.stopOnceWriting(running, in: out, purpose: "export"))
        kill(running.process.processIdentifier, SIGKILL)
        running.process.waitUntilExit()
        #expect(running.process.terminationReason == .uncaughtSignal)
        let left = Self.temporaries(in: out)
        #expect(left.count == 1 && left[0].hasPrefix(".notes.jsonl.gz.export-") && left[0].hasSuffix(".tmp"))
        // A live writer's temporary file: this test holds its lock, as a running export would.
        let live = out + "/.live.jsonl.gz.export-\(UUID().uuidString.lowercased()).tmp"
        let descriptor = open(live, O_RDWR | O_CREAT | O_EXCL, 0o600)
        #expect(descriptor >= 0 && flock(descriptor, LOCK_EX | LOCK_NB) == 0)
        defer { close(descriptor) }
        // Dead ones beside the store: a restore's temporary database with its log, a verification's scratch
        // directory.
        let restore = workspace.path(".user.db.restore-\(UUID().uuidString.lowercased()).tmp")
        for suffix in ["", "-wal", "-shm"] { _ = FileManager.default.createFile(atPath: restore + suffix, contents: Data()) }
        let scratch = workspace.path(".user.db.scratch-\(UUID().uuidString.lowercased()).tmp")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false)
        _ = FileManager.default.createFile(atPath: scratch + "/scratch.db", contents: Data("notes".utf8))
        // The next command on the target's directory removes the dead one only.
        try workspace.ok(["export", out + "/other.jsonl.gz"])
        #expect(Self.temporaries(in: out) == [(live as NSString).lastPathComponent])
        // The next command on the store removes the store's.
        try workspace.ok(["content", "info"])
        #expect(Self.temporaries(in: workspace.directory.path) == [])
        #expect(FileManager.default.fileExists(atPath: live))
    }
}
