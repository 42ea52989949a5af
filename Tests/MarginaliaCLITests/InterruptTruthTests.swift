import Foundation
import MarginaliaTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ctrl-C tells the truth: SIGINT at seeded random moments of an import that commits in steps, and of a restore,
/// and the message always matches what the store holds, read afterwards with the stock `sqlite3` shell: "nothing
/// was changed" only when nothing was; "imported X of Y changes … so far" when X changes of a pending import are
/// committed (and the next command finishes it); "N changes had already been committed" when the work ended
/// first; "already replaced whole" when the restore's copy had committed.
@Suite(.serialized) struct InterruptTruthTests {
    /// The store's committed log: how many changes, and its name (the creation time a restore renews).
    struct Log: Equatable {
        var changes: Int
        var name: String
        /// The pending import's changes read and total, when one is recorded.
        var pending: (read: Int, total: Int)?

        init(_ workspace: CLIWorkspace, _ store: String) throws {
            let text = try workspace.sqlite(store, """
                SELECT (SELECT count(*) FROM changes) || '|' || (SELECT value FROM meta WHERE key = 'created_at')
                    || '|' || coalesce((SELECT json_extract(value, '$.changes_read') || '|'
                    || json_extract(value, '$.changes_total') FROM adapter_state
                    WHERE owner = 'archive' AND name LIKE 'pending_import:%'), '');
                """).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let parts = text.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            changes = Int(parts[0]) ?? -1
            name = parts.count > 1 ? parts[1] : ""
            pending = parts.count > 3 ? Int(parts[2]).flatMap { read in Int(parts[3]).map { (read, $0) } } : nil
        }

        static func == (left: Log, right: Log) -> Bool {
            left.changes == right.changes && left.name == right.name && left.pending?.read == right.pending?.read
        }
    }

    /// Whether process `pid` holds the write lock of the store at `store` (byte 120 of its `-shm`, in
    /// `/proc/locks`).
    static func holdsWriteLock(_ pid: Int32, of store: String) -> Bool {
        guard let inode = (try? FileManager.default.attributesOfItem(atPath: store + "-shm"))?[.systemFileNumber]
                as? UInt64,
              let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return false }
        return locks.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ")
            return fields.count >= 8 && fields[3] == "WRITE" && fields[4] == "\(pid)"
                && fields[5].hasSuffix(":\(inode)") && fields[6] == "120"
        }
    }

    /// Runs `arguments` and sends SIGINT after `delay` microseconds; the exit status and stderr.
    static func interrupt(_ workspace: CLIWorkspace, _ arguments: [String], after delay: UInt32) throws
        -> (status: Int32, stderr: String)
    {
        let running = try InterruptionTests.Running(workspace, arguments)
        usleep(delay)
        kill(running.process.processIdentifier, SIGINT)
        running.process.waitUntilExit()
        return (running.process.terminationStatus, running.stderr)
    }

    @Test(.enabled(if: hasSQLiteShell))
    func anInterruptedImportOrRestoreSaysWhatTheStoreHolds() throws {
        let seed = TestSeed.printed(for: "InterruptTruthTests")
        var random = SeededGenerator(seed: seed)
        let workspace = try InterruptionTests.bigWorkspace()
        let archive = workspace.path("full.jsonl.gz")
        try workspace.ok(["export", archive])
        // A store of its own, holding a note of its own: the archive's 3,000 changes go in by steps.
        let start = try workspace.newStore("start.db")
        try workspace.ok(["--store", start, "note", "mai-am-un-singur-dor.1", "its own"])
        let backup = workspace.path("start.jsonl.gz")
        try workspace.ok(["--store", start, "backup", backup])
        let before = try Log(workspace, start)
        // How long each takes here, uninterrupted: the signal comes at a random moment within that time.
        var durations: [Bool: Double] = [:]
        for restore in [false, true] {
            let store = workspace.path("timed-\(restore).db")
            try FileManager.default.copyItem(atPath: start, toPath: store)
            let began = Date()
            try workspace.ok(restore ? ["--store", store, "restore", backup] : ["--store", store, "import", archive])
            durations[restore] = Date().timeIntervalSince(began)
        }
        var seen: Set<String> = []
        for run in 0..<12 {
            let store = workspace.path("run-\(run).db")
            try FileManager.default.copyItem(atPath: start, toPath: store)
            let restore = run % 4 == 3
            let arguments = restore ? ["--store", store, "restore", backup] : ["--store", store, "import", archive]
            let fraction = Double(random.next() % 1_000) / 1_000
            let delay = UInt32((durations[restore] ?? 1) * fraction * 1_000_000)
            let (status, stderr) = try Self.interrupt(workspace, arguments, after: delay)
            let after = try Log(workspace, store)
            let comment = "seed \(seed), run \(run), \(arguments[2]) after \(delay) µs: \(stderr)"
            if status == 0 {
                seen.insert("finished")
                #expect(after.pending == nil, "\(comment)")
                continue
            }
            #expect(status == 130, "\(comment)")
            if stderr == "Error: interrupted by SIGINT; nothing was changed\n" {
                seen.insert("nothing")
                #expect(after == before, "\(comment)")
            } else if let match = stderr.firstMatch(of: /imported (\d+) of (\d+) changes of .* so far; the next/) {
                seen.insert("partway")
                #expect(after.pending?.read == Int(match.1) && after.pending?.total == Int(match.2), "\(comment)")
                #expect(after.changes > before.changes, "\(comment)")
                // The next command finishes it, and says so.
                let next = try workspace.run(["--store", store, "list", "--json"])
                #expect(next.stderr.contains("Finished the import of"), "\(comment); \(next.stderr)")
                #expect(try Log(workspace, store).changes == before.changes + 3_000, "\(comment)")
            } else if let match = stderr.firstMatch(of: /(\d+) changes? had already been committed/) {
                seen.insert("committed")
                #expect(after.changes - before.changes == Int(match.1) && after.pending == nil, "\(comment)")
            } else if stderr.contains("already replaced whole") {
                seen.insert("replaced")
                #expect(after.name != before.name, "\(comment)")
            } else {
                Issue.record("an unexpected message: \(comment)")
            }
            #expect(try workspace.run(["--store", store, "verify"]).status == 0, "\(comment)")
        }
        print("InterruptTruthTests: outcomes \(seen.sorted())")
    }

    @Test(.enabled(if: hasSQLiteShell))
    func anImportUnderWayIsListedWithHowFarItHasCome() throws {
        let workspace = try InterruptionTests.bigWorkspace()
        let archive = workspace.path("full.jsonl.gz")
        try workspace.ok(["export", archive])
        // A busy machine may finish an import before `imports` runs beside it: a few tries, each on a new store.
        var watched = false
        for attempt in 0..<12 where !watched {
            let store = try workspace.newStore("other-\(attempt).db")
            try workspace.ok(["--store", store, "note", "mai-am-un-singur-dor.1", "its own"])
            let running = try InterruptionTests.Running(workspace, ["--store", store, "import", archive])
            // Once a step has committed, `imports` runs beside it (the import yields the writer between steps).
            var pending: (read: Int, total: Int)?
            while running.process.isRunning && pending == nil {
                pending = try Log(workspace, store).pending
                if pending == nil { usleep(10_000) }
            }
            // Stopped between two steps (SIGSTOP while it holds no write lock), so that it cannot end meanwhile.
            let pid = running.process.processIdentifier
            var stoppedBetweenSteps = false
            for _ in 0..<200 where running.process.isRunning && pending != nil {
                kill(pid, SIGSTOP)
                if !Self.holdsWriteLock(pid, of: store) {
                    stoppedBetweenSteps = true
                    break
                }
                kill(pid, SIGCONT)
                usleep(1_000)
            }
            let listed = try workspace.run(["--store", store, "imports"])
            let stillRunning = stoppedBetweenSteps && running.process.isRunning
            let after = try Log(workspace, store).pending
            kill(pid, SIGCONT)
            running.process.waitUntilExit()
            #expect(running.process.terminationStatus == 0, "\(running.stderr)")
            guard pending != nil && stillRunning else { continue }
            watched = true
            #expect(listed.status == 0, "\(listed.stderr)")
            let shown = try #require(listed.stdout.firstMatch(of: /^importing (.+): (\d+) of 3000 changes so far\n/),
                                     "\(listed.stdout)")
            #expect(shown.1 == archive)
            let count = Int(shown.2) ?? -1
            #expect(count >= pending?.read ?? .max && count <= after?.read ?? 3_000,
                    "\(count), \(String(describing: after))")
            #expect(try workspace.ok(["--store", store, "imports"]).hasPrefix("#"))
        }
        #expect(watched, "every import ended before it could be watched")
    }
}
