import Foundation
import Marginalia
import MarginaliaTestSupport
import Testing

/// Clocks and locks through the binary: future-dated changes held and listed, far-off local clocks reported,
/// and writers that wait for another process's write instead of failing with "database is locked".
@Suite struct ClockCLITests {
    /// Runs `program` with `arguments` through /usr/bin/env and returns it running, its stdout piped.
    private static func start(_ arguments: [String]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        return (process, output)
    }

    @Test func aWriterWaitsForAnotherProcessHoldingTheWriteLock() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["highlight", "mai-am-un-singur-dor.1"])
        // Another process takes the write lock, says so, and keeps it longer than the old 5 s timeout.
        let (holder, output) = try Self.start(["python3", "-c", """
            import sqlite3, sys, time
            db = sqlite3.connect(sys.argv[1], isolation_level=None)
            db.execute("BEGIN IMMEDIATE")
            print("locked", flush=True)
            time.sleep(6)
            db.execute("COMMIT")
            """, workspace.store])
        let said = output.fileHandleForReading.availableData
        #expect(String(decoding: said, as: UTF8.self).hasPrefix("locked"))
        let written = try workspace.run(["note", "mai-am-un-singur-dor.2", "waited"])
        holder.waitUntilExit()
        #expect(written.status == 0, "\(written.stderr)")
        #expect(!written.stderr.contains("locked"))
        #expect(try workspace.ok(["list"]).contains("waited"))
    }

    @Test func futureChangesAreHeldListedAndAcceptedThroughTheBinary() throws {
        let first = try CLIWorkspace()
        try first.ok(["highlight", "mai-am-un-singur-dor.1"])
        let archive = first.path("first.jsonl.gz")
        try first.ok(["export", archive])
        // The file's one change, made three days from now (its clock's 15 digits of milliseconds, and its wall time).
        let lines = try ChildProcess("/bin/gzip", ["-dc", archive]).run().stdout
        let future = Int64(Date().timeIntervalSince1970 * 1000) + 3 * 86_400_000
        let shifted = lines.replacingOccurrences(
            of: #""hlc":"\d{15}"#, with: "\"hlc\":\"\(String(format: "%015lld", future))", options: .regularExpression)
            .replacingOccurrences(of: #""madeAt":"[^"]*""#, with: "\"madeAt\":\"\(Timestamp.iso8601(milliseconds: future))\"",
                                  options: .regularExpression)
        #expect(shifted != lines)
        let plain = first.path("future.jsonl")
        try shifted.write(toFile: plain, atomically: true, encoding: .utf8)
        _ = try ChildProcess("/bin/gzip", ["-f", plain]).run()
        let futureArchive = plain + ".gz"

        let second = try CLIWorkspace()
        try second.ok(["highlight", "mai-am-un-singur-dor.3"])
        let imported = try second.run(["import", futureArchive])
        #expect(imported.status == 0)
        #expect(imported.stdout.contains("held in quarantine:  1"))
        let listed = try #require(try second.run(["--json", "quarantine"]).json() as? [String: Any])
        let held = try #require(listed["quarantined"] as? [[String: Any]])
        #expect(held.count == 1 && held.first?["source"] as? String == futureArchive)
        #expect(try second.ok(["quarantine"]).contains("from \(futureArchive)"))
        let accepted = try #require(try second.run(["--json", "import", futureArchive, "--accept-future"]).json()
            as? [String: Any])
        #expect(accepted["newChanges"] as? Int == 1 && accepted["quarantined"] as? Int == 0)
        #expect(try second.ok(["quarantine"]) == "No change is held in quarantine.")
        // The store's newest change is now three days ahead, by another machine's clock: this machine's clock is
        // not judged by it. The next local write is made, and nothing is said.
        let next = try second.run(["highlight", "mai-am-un-singur-dor.2"])
        #expect(next.status == 0)
        #expect(!next.stderr.contains("Warning"))
        let notes = try #require(try second.run(["--json", "quarantine"]).json() as? [String: Any])
        #expect((notes["clockNotes"] as? [[String: Any]])?.isEmpty == true)
    }
}
