import Foundation
import Marginalia
import MarginaliaTestSupport
import Testing

/// kill -9 at seeded random points during the commands that write (reliability plan A.1 and B.14): the built
/// binary does the work, the test sends SIGKILL at a random time, then checks the store as the next command
/// would find it, and that no temporary file of the killed run outlives the next command. Each test prints its seed; `MARGINALIA_FAULT_RUNS=500` runs each 500 times.
@Suite(.serialized) struct KillTests {
    /// A passage whose text edition tiny-2 shifts by one character, so every highlight on it moves.
    static let movingPassage = "noi-amandoi-avem-acelasi-dascal.1"

    /// Makes `count` highlights (with notes) in one transaction, through the library.
    static func fill(_ path: String, content: String, count: Int, tag: String) throws {
        let store = try AnnotationStore.open(path: path, access: .create)
        try store.attachContent(path: content)
        try store.batch {
            for index in 0..<count {
                _ = try store.createAnnotation(
                    .highlight, at: AnchorRequest(passage: movingPassage, quote: "Unitul"), note: "\(tag) \(index)")
            }
        }
    }

    /// A kill time in 0…5/4 of a whole run, so that some runs end before the kill.
    static func killTime(_ whole: Int, _ random: inout SeededGenerator) -> Int {
        Int.random(in: 0...(whole + whole / 4), using: &random)
    }

    @Test func everyAcknowledgedSingleWriteSurvivesAKill() throws {
        let seed = FaultRuns.seed("kill during single writes")
        var random = SeededGenerator(seed: seed)
        let workspace = try CLIWorkspace()
        let first = try workspace.ok(["note", "mai-am-un-singur-dor.2", "first"])
        var acknowledged = [first]
        let whole = try workspace.runKilled(["note", "mai-am-un-singur-dor.2", "calibration"], killAfter: nil)
        try #require(whole.status == 0, "\(whole.stderr)")
        acknowledged.append(whole.stdout.trimmingCharacters(in: .newlines))
        var killed = 0
        for run in 0..<FaultRuns.count(default: 36) {
            let after = Self.killTime(whole.microseconds, &random)
            let result = try workspace.runKilled(["note", "mai-am-un-singur-dor.2", "run \(run)"], killAfter: after)
            let comment: Comment = "seed \(seed), run \(run), killed after \(after) µs"
            if result.completed {
                #expect(result.status == 0, "\(result.stderr); \(comment)")
                // The id is printed only after the commit: it is the acknowledgement.
                let id = result.stdout.trimmingCharacters(in: .newlines)
                if result.status == 0 && !id.isEmpty { acknowledged.append(id) }
            } else {
                killed += 1
            }
            try expectHealthyAfterCrash(workspace.store, comment)
            let store = try AnnotationStore.open(path: workspace.store, access: .readOnly)
            for id in acknowledged {
                #expect(throws: Never.self, "acknowledged \(id) is lost; \(comment)") {
                    _ = try store.annotation(id: id)
                }
            }
        }
        try workspace.expectNoTemporaryFileOutlivesTheNextRun(store: workspace.store, "seed \(seed)")
        print("\(killed) runs killed before they finished, seed \(seed)")
        #expect(killed > 0, "no run was killed (seed \(seed))")
    }

    @Test func aKilledImportIsAllOrNothing() throws {
        let seed = FaultRuns.seed("kill during a large import")
        var random = SeededGenerator(seed: seed)
        let workspace = try CLIWorkspace()
        try workspace.ok(["note", "mai-am-un-singur-dor.2", "already here"])
        let other = try workspace.newStore("other.db")
        // Enough changes for the merge to take several steps (each a transaction of its own), so that some kills
        // fall between two of them: the next open finishes that import.
        try Self.fill(other, content: workspace.content, count: 4000, tag: "imported")
        let archive = workspace.path("other.jsonl.gz")
        try AnnotationStore.open(path: other, access: .readOnly).exportArchive(toFile: archive)
        let before = try changeCount(workspace.store)
        let target = workspace.path("run.db")
        try copyStore(workspace.store, to: target)
        let whole = try workspace.runKilled(["--store", target, "import", archive], killAfter: nil)
        try #require(whole.status == 0, "\(whole.stderr)")
        let after = try changeCount(target)
        try #require(after == before + 4000)
        var killed = 0
        var finishedOnReopen = 0
        for run in 0..<FaultRuns.count(default: 8) {
            try copyStore(workspace.store, to: target)
            let at = Self.killTime(whole.microseconds, &random)
            let result = try workspace.runKilled(["--store", target, "import", archive], killAfter: at)
            let comment: Comment = "seed \(seed), run \(run), killed after \(at) µs"
            let name = target.split(separator: "/").last.map(String.init) ?? target
            if try FileManager.default.contentsOfDirectory(atPath: (target as NSString).deletingLastPathComponent)
                .contains(where: { $0.hasPrefix(name + "-import-") }) {
                finishedOnReopen += 1
            }
            try expectHealthyAfterCrash(target, comment)
            try workspace.expectNoTemporaryFileOutlivesTheNextRun(store: target, comment)
            let count = try changeCount(target)
            #expect(count == before || count == after, "an import half applied: \(count) changes; \(comment)")
            if result.completed {
                #expect(result.status == 0 && count == after, "\(result.stderr); \(comment)")
            } else {
                killed += 1
            }
        }
        print("\(killed) runs killed before they finished, \(finishedOnReopen) of them midway through the merge and "
            + "finished by the next open, seed \(seed)")
        #expect(killed > 0, "no run was killed (seed \(seed))")
    }

    @Test func aKilledBackupLeavesTheOldBackupOrAVerifiedNewOne() throws {
        let seed = FaultRuns.seed("kill during backup")
        var random = SeededGenerator(seed: seed)
        let workspace = try CLIWorkspace()
        try Self.fill(workspace.store, content: workspace.content, count: 200, tag: "old")
        let old = workspace.path("old.jsonl.gz")
        try workspace.ok(["backup", old])
        let oldBytes = try workspace.bytes(old)
        try Self.fill(workspace.store, content: workspace.content, count: 100, tag: "new")
        let changes = try changeCount(workspace.store)
        let target = workspace.path("backup.jsonl.gz")
        let whole = try workspace.runKilled(["backup", target], killAfter: nil)
        try #require(whole.status == 0, "\(whole.stderr)")
        var killed = 0
        for run in 0..<FaultRuns.count(default: 8) {
            // Half the runs replace an earlier backup, half write a new one.
            let replacing = run % 2 == 0
            if FileManager.default.fileExists(atPath: target) { try FileManager.default.removeItem(atPath: target) }
            if replacing { try oldBytes.write(to: URL(fileURLWithPath: target)) }
            let at = Self.killTime(whole.microseconds, &random)
            let result = try workspace.runKilled(["backup", target], killAfter: at)
            let comment: Comment = "seed \(seed), run \(run), replacing \(replacing), killed after \(at) µs"
            if !result.completed { killed += 1 }
            try expectHealthyAfterCrash(workspace.store, comment)
            try workspace.expectNoTemporaryFileOutlivesTheNextRun(store: workspace.store, comment)
            guard FileManager.default.fileExists(atPath: target) else {
                #expect(!replacing && !result.completed, "the earlier backup vanished; \(comment)")
                continue
            }
            if try workspace.bytes(target) == oldBytes && !result.completed { continue }
            // Anything else under the name must be the complete new backup.
            let verification = try ArchiveVerifier.verify(path: target)
            #expect(verification.summary.counts.changes == changes, comment)
        }
        print("\(killed) runs killed before they finished, seed \(seed)")
        #expect(killed > 0, "no run was killed (seed \(seed))")
    }

    @Test func aKilledReanchorIsAllOrNothing() throws {
        let seed = FaultRuns.seed("kill during re-anchor")
        var random = SeededGenerator(seed: seed)
        let workspace = try CLIWorkspace()
        try Self.fill(workspace.store, content: workspace.content, count: 300, tag: "moving")
        let edition2 = workspace.path("content-2.db")
        try workspace.ok(["content", "build", CLIWorkspace.samples.appendingPathComponent("tiny-2.json").path,
                          "--output", edition2])
        let before = try changeCount(workspace.store)
        let target = workspace.path("run.db")
        try copyStore(workspace.store, to: target)
        let arguments = ["--store", target, "--content", edition2, "anchors", "--reanchor"]
        let whole = try workspace.runKilled(arguments, killAfter: nil)
        try #require(whole.status == 0, "\(whole.stderr)")
        let after = try changeCount(target)
        try #require(after >= before + 300)
        var killed = 0
        for run in 0..<FaultRuns.count(default: 8) {
            try copyStore(workspace.store, to: target)
            let at = Self.killTime(whole.microseconds, &random)
            let result = try workspace.runKilled(arguments, killAfter: at)
            let comment: Comment = "seed \(seed), run \(run), killed after \(at) µs"
            try expectHealthyAfterCrash(target, comment)
            try workspace.expectNoTemporaryFileOutlivesTheNextRun(store: target, comment)
            let count = try changeCount(target)
            #expect(count == before || count == after, "a re-anchor half applied: \(count) changes; \(comment)")
            if result.completed {
                #expect(result.status == 0 && count == after, "\(result.stderr); \(comment)")
            } else {
                killed += 1
            }
        }
        print("\(killed) runs killed before they finished, seed \(seed)")
        #expect(killed > 0, "no run was killed (seed \(seed))")
    }
}
