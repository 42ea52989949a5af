import Foundation
import Marginalia
import MarginaliaTestSupport
import Testing

/// Several processes on one store at once (reliability plan A.6): writers adding notes in a loop, an import,
/// exports and a verify. No acknowledged write is lost, every export verifies, and nothing fails with
/// "database is locked".
@Suite struct ConcurrentProcessTests {
    /// What the processes reported, gathered from their threads.
    final class Outcomes: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var acknowledged: [String] = []
        private(set) var failures: [String] = []

        func acknowledge(_ id: String) { lock.withLock { acknowledged.append(id) } }
        func fail(_ what: String) { lock.withLock { failures.append(what) } }
    }

    final class Shared: @unchecked Sendable {
        let workspace: CLIWorkspace
        init(_ workspace: CLIWorkspace) { self.workspace = workspace }
    }

    @Test func aStoreAnotherProcessHoldsIsNamedBusyAfterItsTimeoutAndNothingChanges() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["note", "mai-am-un-singur-dor.1", "una"])
        let before = try workspace.ok(["log", "--json"])
        // Another process takes the store's write lock and keeps it (Python's sqlite3, not this tool).
        let locked = workspace.path("locked")
        let holder = try ChildProcess("/usr/bin/python3", ["-c", """
            import sqlite3, sys, time
            connection = sqlite3.connect(sys.argv[1], isolation_level=None)
            connection.execute("BEGIN IMMEDIATE")
            open(sys.argv[2], "w").close()
            time.sleep(60)
            """, workspace.store, locked]).start()
        defer {
            holder.send(SIGKILL)
            _ = holder.wait()
        }
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: locked) && Date() < deadline { usleep(20_000) }
        let started = Date()
        let busy = try workspace.run(["note", "mai-am-un-singur-dor.2", "două"],
                                     environment: ["MARGINALIA_BUSY_TIMEOUT": "4"])
        let waited = Date().timeIntervalSince(started)
        #expect(busy.status == 75, "\(busy.stderr)")
        // Named while it waits (after 2 s), with the process that holds the store, and again when it gives up.
        let pid = holder.processIdentifier
        #expect(busy.stderr.hasPrefix("Waiting for the store \(workspace.store): process \(pid) (python3 -c"),
                "\(busy.stderr)")
        #expect(busy.stderr.contains("the store \(workspace.store) is busy: process \(pid) (python3"),
                "\(busy.stderr)")
        #expect(busy.stderr.contains("has held it for 4 s"), "\(busy.stderr)")
        #expect(!busy.stderr.contains("SQLite error"))
        #expect(waited < 20, "waited \(waited) s")
        holder.send(SIGKILL)
        _ = holder.wait()
        #expect(try workspace.ok(["log", "--json"]) == before)
    }

    @Test func writersAnImportExportsAndAVerifyAtOnceLoseNothing() throws {
        let workspace = try CLIWorkspace()
        let first = try workspace.ok(["note", "mai-am-un-singur-dor.2", "first"])
        let other = try workspace.newStore("other.db")
        try KillTests.fill(other, content: workspace.content, count: 400, tag: "imported")
        let archive = workspace.path("other.jsonl.gz")
        try AnnotationStore.open(path: other, access: .readOnly).exportArchive(toFile: archive)

        let shared = Shared(workspace)
        let outcomes = Outcomes()
        outcomes.acknowledge(first)
        let writers = 3
        let writesEach = 12
        let exports = 3
        // One job per concurrent process chain: the writers, the import, the exports, the verifies.
        DispatchQueue.concurrentPerform(iterations: writers + 3) { job in
            let workspace = shared.workspace
            do {
                switch job {
                case 0..<writers:
                    for index in 0..<writesEach {
                        let run = try workspace.run(["note", "mai-am-un-singur-dor.3", "writer \(job) note \(index)"])
                        if run.status == 0 {
                            outcomes.acknowledge(run.stdout.trimmingCharacters(in: .newlines))
                        } else {
                            outcomes.fail("writer \(job): exit \(run.status): \(run.stderr)")
                        }
                    }
                case writers:
                    let run = try workspace.run(["import", archive])
                    if run.status != 0 { outcomes.fail("import: exit \(run.status): \(run.stderr)") }
                case writers + 1:
                    for index in 0..<exports {
                        let target = workspace.path("export-\(index).jsonl.gz")
                        let run = try workspace.run(["export", target])
                        if run.status != 0 { outcomes.fail("export \(index): exit \(run.status): \(run.stderr)") }
                    }
                default:
                    for index in 0..<3 {
                        let run = try workspace.run(["verify"])
                        if run.status != 0 { outcomes.fail("verify \(index): exit \(run.status): \(run.stderr)") }
                    }
                }
            } catch {
                outcomes.fail("job \(job): \(error)")
            }
        }
        // "database is locked" would show here; writers wait for the lock (busy handler) instead.
        #expect(outcomes.failures == [])
        for index in 0..<exports {
            let target = workspace.path("export-\(index).jsonl.gz")
            guard FileManager.default.fileExists(atPath: target) else { continue }
            #expect(throws: Never.self, "export \(index) does not verify") {
                _ = try ArchiveVerifier.verify(path: target)
            }
        }
        let store = try AnnotationStore.open(path: workspace.store, access: .readOnly)
        #expect(try store.verify().problems == [])
        for id in outcomes.acknowledged {
            #expect(throws: Never.self, "acknowledged \(id) is lost") { _ = try store.annotation(id: id) }
        }
        let imported = outcomes.failures.contains { $0.hasPrefix("import") } ? 0 : 400
        #expect(try store.changeCount() == outcomes.acknowledged.count + imported)
    }
}
