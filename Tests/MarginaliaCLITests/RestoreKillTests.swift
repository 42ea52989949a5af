import Foundation
import Marginalia
import MarginaliaTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// kill -9 at seeded random points during `marginalia restore` (reliability plan A.1): the built binary restores
/// a backup over a copy of a store and the test sends SIGKILL at a random time, half the runs at any moment of
/// the run and half once the `.bak` has appeared (the copy into the store is about to begin or under way). After
/// each kill the next command on the store runs, then: no temporary file of the killed run is left beside the
/// store; the store verifies (`verify` too) and is exactly the old store or exactly the restored one; once the
/// restored one is under the live name, the old one is in a `.bak` that verifies; a run that said "Restored" left
/// the restored one. The test prints its seed; `MARGINALIA_FAULT_RUNS=500` runs it 500 times.
@Suite(.serialized) struct RestoreKillTests {
    /// What "exactly" compares: the log's change ids in order and every annotation's id and note; and the device
    /// id, which a restore over a healthy store keeps.
    struct StoreState: Equatable {
        var changes: [String]
        var annotations: [String]
        var deviceID: String

        init(_ path: String) throws {
            let db = try SQLiteDatabase(path: path, mode: .readOnly)
            changes = try db.fetchAll(sql: "SELECT change_id FROM changes ORDER BY seq") { try $0.string(0) }
            annotations = try db.fetchAll(sql: "SELECT id || ' ' || coalesce(note, '') FROM annotations ORDER BY id") {
                try $0.string(0)
            }
            deviceID = try db.text(sql: "SELECT value FROM meta WHERE key = 'device_id'") ?? ""
        }

        func sameContent(as other: StoreState) -> Bool {
            changes == other.changes && annotations == other.annotations
        }
    }

    /// The names in `directory` that end with `suffix`, sorted.
    static func entries(_ directory: String, endingWith suffix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(suffix) }.sorted()
    }

    /// A fresh directory `runs` holding a copy of `store` as `user.db`; returns the copy's path.
    static func freshTarget(_ workspace: CLIWorkspace, from store: String) throws -> String {
        let directory = workspace.path("runs")
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let target = directory + "/user.db"
        try FileManager.default.copyItem(atPath: store, toPath: target)
        return target
    }

    @Test func aKilledRestoreLeavesAVerifiedStoreUnderTheLiveNameAndTheOldOneInABak() throws {
        let seed = FaultRuns.seed("kill during restore")
        var random = SeededGenerator(seed: seed)
        let workspace = try CLIWorkspace()
        // A larger old store than the archive restores: copying it to the `.bak` is a window worth hitting too.
        try KillTests.fill(workspace.store, content: workspace.content, count: 120, tag: "old")
        let other = try workspace.newStore("other.db")
        try KillTests.fill(other, content: workspace.content, count: 60, tag: "restored")
        let archive = workspace.path("other.jsonl.gz")
        try AnnotationStore.open(path: other, access: .readOnly).exportArchive(toFile: archive)
        let old = try StoreState(workspace.store)
        let arguments = { (target: String) in ["--store", target, "restore", archive] }

        // Calibration: how long a whole restore takes, and how long it runs on once its `.bak` appeared.
        var target = try Self.freshTarget(workspace, from: workspace.store)
        let whole = try workspace.runKilledOnceBakAppears(arguments(target), beside: target, killAfter: nil)
        try #require(whole.run.status == 0, "\(whole.run.stderr)")
        let restored = try StoreState(target)
        try #require(!restored.sameContent(as: old) && restored.changes.count == 60)
        let tail = max(1, whole.run.microseconds - (whole.bakAppearedAfter ?? 0))

        var outcomes = (killed: 0, old: 0, restored: 0, afterBak: 0)
        for run in 0..<FaultRuns.count(default: 24) {
            target = try Self.freshTarget(workspace, from: workspace.store)
            let runs = (target as NSString).deletingLastPathComponent
            let onceBak = run % 2 == 1
            let delay = KillTests.killTime(onceBak ? tail : whole.run.microseconds, &random)
            let result: KilledRun
            if onceBak {
                let watched = try workspace.runKilledOnceBakAppears(arguments(target), beside: target, killAfter: delay)
                result = watched.run
                if watched.bakAppearedAfter != nil && !result.completed { outcomes.afterBak += 1 }
            } else {
                result = try workspace.runKilled(arguments(target), killAfter: delay)
            }
            let comment: Comment = "seed \(seed), run \(run), killed \(delay) µs after \(onceBak ? "the .bak" : "start")"
            if !result.completed { outcomes.killed += 1 }

            // The next command on the store removes what the killed run left beside it.
            let next = try workspace.run(["--store", target, "list"])
            #expect(next.status == 0, "\(next.stderr); \(comment)")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: runs)
                .filter { $0.hasPrefix(".") && $0.contains(".tmp") && !CLIWorkspace.isBeingCreated($0) }
            #expect(leftovers == [], "left after the next run; \(comment)")

            try expectHealthyAfterCrash(target, comment)
            let verify = try workspace.run(["--store", target, "verify"])
            #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr); \(comment)")
            let state = try StoreState(target)
            let baks = try Self.entries(runs, endingWith: ".bak")
            if state == old {
                outcomes.old += 1
                #expect(!(result.completed && result.status == 0), "restored, yet the old store is there; \(comment)")
            } else {
                outcomes.restored += 1
                #expect(state.sameContent(as: restored) && state.deviceID == old.deviceID,
                        "neither the old store nor the restored one: \(state.changes.count) changes; \(comment)")
                #expect(baks.count == 1, "the restored store is there, but .bak files are \(baks); \(comment)")
            }
            if result.completed {
                #expect(result.status == 0 && result.stdout.hasPrefix("Restored 60 changes"),
                        "\(result.stderr); \(comment)")
            }
            // A `.bak` under its name is a complete, verified copy of the old store.
            for bak in baks.map({ runs + "/" + $0 }) {
                let problems = try AnnotationStore.open(path: bak, access: .readOnly).verify().problems
                #expect(problems == [], "\(bak); \(comment)")
                #expect(try StoreState(bak) == old, "\(bak) is not the old store; \(comment)")
            }
        }
        print("kill during restore: \(outcomes.killed) runs killed (\(outcomes.afterBak) after the .bak appeared); "
            + "\(outcomes.old) left the old store, \(outcomes.restored) the restored one; seed \(seed)")
        #expect(outcomes.killed > 0 && outcomes.afterBak > 0, "no run was killed after the .bak appeared (seed \(seed))")
    }
}

extension CLIWorkspace {
    /// Runs `marginalia ARGS`, watching the directory of `store` for a `.bak`, and sends SIGKILL `killAfter`
    /// microseconds after one appeared (never, without `killAfter`, or if the run ended first); returns the run
    /// and when the `.bak` appeared, in microseconds after the start (nil if it never did while the run lasted).
    func runKilledOnceBakAppears(_ arguments: [String], beside store: String, killAfter: Int?) throws
        -> (run: KilledRun, bakAppearedAfter: Int?)
    {
        let directory = (store as NSString).deletingLastPathComponent
        var environment = environment()
        environment["MARGINALIA_STORE"] = nil  // `arguments` name the store
        let start = DispatchTime.now().uptimeNanoseconds
        func elapsed() -> Int { Int((DispatchTime.now().uptimeNanoseconds - start) / 1000) }
        let running = try ChildProcess(Self.binary, arguments, environment: environment).start()
        var appeared: Int?
        while running.isRunning {
            if try !RestoreKillTests.entries(directory, endingWith: ".bak").isEmpty {
                appeared = elapsed()
                break
            }
            usleep(100)
        }
        if appeared != nil, let killAfter {
            if killAfter > 0 { usleep(useconds_t(killAfter)) }
            running.send(SIGKILL)
        }
        let result = running.wait()
        return (KilledRun(result, microseconds: elapsed()), appeared)
    }
}
