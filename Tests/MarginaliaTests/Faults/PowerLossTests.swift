import CrashVFS
import Foundation
import Testing
@testable import Marginalia

/// Simulated power loss (reliability plan A.2): the store runs on the crash VFS, which loses every write not yet
/// synced, or tears it (keeps a seeded random subset of its sectors), at each sync point in turn (N = 1, 2, …
/// until the work completes), and once more right after the last acknowledgement. The store as the crash left
/// it must open, pass `verify`, and hold every commit acknowledged before the crash: with WAL and
/// synchronous=FULL nothing acknowledged is lost.
extension CrashDiskTests {
    /// Runs `work` on a fresh copy of `base` crashing at each sync point, then after it completes; `check` gets
    /// the store as the crash left it, what `work` acknowledged, and the comment naming the run.
    static func sweepPowerLoss(
        _ test: String, base: String, content: String, directory: TemporaryDirectory,
        work: (AnnotationStore, inout [String]) throws -> Void,
        check: (AnnotationStore, [String], Comment) throws -> Void
    ) throws {
        let seed = CrashDisk.seed(test)
        // Torn writes are random: MARGINALIA_FAULT_RUNS=N tears them N ways (seeds derived from the printed one).
        let tornRounds = ProcessInfo.processInfo.environment["MARGINALIA_FAULT_RUNS"].flatMap { Int($0) } ?? 1
        for round in 0...max(1, tornRounds) {
            let tear = round > 0
            var point = 1
            while true {
                try CrashDisk.reset()
                crashvfs_crash_at_sync(Int32(point), tear ? 1 : 0, seed &+ UInt64(round << 16) &+ UInt64(point))
                let path = try CrashDisk.copy(base, directory, "run")
                var acknowledged: [String] = []
                var image: String?
                do {
                    let store = try CrashDisk.open(path, content: content)
                    try work(store, &acknowledged)
                    // Work done, nothing crashed yet: the power goes now, before the store is closed.
                    if crashvfs_crashed() == 0 { image = try CrashDisk.writeCrashImage(directory, "after") }
                } catch {
                    // After the crash every write fails; what was not acknowledged may be lost.
                }
                let crashed = crashvfs_crashed() != 0
                if crashed { image = try CrashDisk.writeCrashImage(directory, "after") }
                let writes = tear ? "torn (round \(round))" : "dropped"
                let comment: Comment = "seed \(seed), \(writes) writes, crash at sync \(point)"
                let store = try CrashDisk.expectHealthy(try #require(image), comment)
                try check(store, acknowledged, comment)
                if !crashed {
                    print("\(test): \(point - 1) sync points, \(tear ? "torn" : "dropped") writes")
                    #expect(point > 1, "the work never synced; \(comment)")
                    break
                }
                point += 1
                try #require(point < 1000, "the work never completed")
            }
        }
        crashvfs_reset()
    }

    @Test func singleWritesSurviveAPowerLossAtEverySyncPoint() throws {
        let directory = try TemporaryDirectory()
        let (base, content) = try Self.baseStore(directory)
        try Self.sweepPowerLoss(
            "power loss during single writes", base: base, content: content, directory: directory,
            work: { (store: AnnotationStore, acknowledged: inout [String]) throws in
                for index in 0..<3 {
                    let made = try store.createAnnotation(
                        .note, at: AnchorRequest(passage: "luceafarul.3"), note: "write \(index)")
                    acknowledged.append(made.id)
                }
                try store.editAnnotation(id: acknowledged[0], note: "edited")
                acknowledged.append("edit")
            },
            check: { (store: AnnotationStore, acknowledged: [String], comment: Comment) throws in
                for id in acknowledged where id != "edit" {
                    #expect(throws: Never.self, "acknowledged \(id) is lost; \(comment)") {
                        _ = try store.annotation(id: id)
                    }
                }
                if acknowledged.contains("edit") {
                    #expect(try store.annotation(id: acknowledged[0]).note == "edited", comment)
                }
                #expect(try store.changeCount() >= 2 + acknowledged.count, comment)
            })
    }

    @Test func anImportSurvivesAPowerLossAtEverySyncPointWholeOrNotAtAll() throws {
        let directory = try TemporaryDirectory()
        let (base, content) = try Self.baseStore(directory)
        let archive = try Self.archive(directory, count: 100)
        try Self.sweepPowerLoss(
            "power loss during an import", base: base, content: content, directory: directory,
            work: { (store: AnnotationStore, acknowledged: inout [String]) throws in
                _ = try store.importArchive(path: archive)
                acknowledged.append("import")
            },
            check: { (store: AnnotationStore, acknowledged: [String], comment: Comment) throws in
                let count = try store.changeCount()
                if acknowledged.isEmpty {
                    #expect(count == 2 || count == 102, "an import half applied: \(count) changes; \(comment)")
                } else {
                    #expect(count == 102, "an acknowledged import is lost: \(count) changes; \(comment)")
                }
            })
    }
}
