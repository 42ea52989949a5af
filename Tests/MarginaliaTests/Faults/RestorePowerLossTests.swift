import CrashVFS
import Foundation
import Testing
@testable import Marginalia

/// Simulated power loss during a restore (reliability plan A.2): the restore's copy into the live store (the
/// online backup API's write transaction, its commit and the checkpoint when the connection closes) is written
/// through the crash VFS, which loses or tears every unsynced write at each sync point in turn (N = 1, 2, … until
/// the restore completes), and once more right after it returned. The store as the crash left it, reopened with
/// the normal VFS, must open, pass `verify`, and be exactly the old store or exactly the restored one, never a
/// mix; the restored one whenever the restore reported success; and once the restored one is under the live
/// name, the old one is in a `.bak` beside it.
extension CrashDiskTests {
    /// The store's rows (`canonicalDump`) without its device id, file (kept for sync), creation time, own-changes
    /// clock and receipt (dated when it was made), which every restore makes afresh.
    static func rowsOfARestore(_ path: String) throws -> String {
        try canonicalDump(path).split(separator: "\n", omittingEmptySubsequences: false)
            .filter { row in
                !["device_id", "created_at", "own_changes_through"]
                    .contains { row.hasPrefix("meta: text(\"\($0)\")") } && !row.hasPrefix("receipts: ")
                    && !row.hasPrefix("adapter_state: text(\"sync\") | text(\"store_file\")")
            }
            .joined(separator: "\n")
    }

    /// The `.bak` files in the directory of `store`.
    static func baks(beside store: String) throws -> [String] {
        let directory = (store as NSString).deletingLastPathComponent
        return try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".bak") }
            .sorted().map { directory + "/" + $0 }
    }

    @Test func aRestoreSurvivesAPowerLossAtEverySyncPointAsTheOldStoreOrTheRestoredOne() throws {
        let directory = try TemporaryDirectory()
        let (base, _) = try Self.baseStore(directory)
        let archive = try Self.archive(directory, count: 60)
        let old = try canonicalDump(base)
        // The restored store as a restore on the normal VFS leaves it.
        let reference = try CrashDisk.copy(base, directory, "reference")
        let referenceReport = try AnnotationStore.restore(archive: archive, to: reference)
        #expect(referenceReport.verification.summary.counts.changes == 60)
        let restored = try Self.rowsOfARestore(reference)
        try #require(restored != (try Self.rowsOfARestore(base)))

        let seed = CrashDisk.seed("power loss during a restore")
        // Torn writes are random: MARGINALIA_FAULT_RUNS=N tears them N ways (seeds derived from the printed one).
        let tornRounds = ProcessInfo.processInfo.environment["MARGINALIA_FAULT_RUNS"].flatMap { Int($0) } ?? 1
        var outcomes = (old: 0, restored: 0, failures: 0)
        for round in 0...max(1, tornRounds) {
            let tear = round > 0
            var point = 1
            while true {
                try CrashDisk.reset()
                crashvfs_crash_at_sync(Int32(point), tear ? 1 : 0, seed &+ UInt64(round << 16) &+ UInt64(point))
                let live = try CrashDisk.copy(base, directory, "run")
                var report: RestoreReport?
                do {
                    report = try ArchiveRestore.restore(archive: archive, to: live, dryRun: false,
                                                         limits: ArchiveLimits(), vfs: CrashDisk.vfs)
                } catch {
                    // A crash fails every later write and sync of the copy: the restore must not claim success.
                    outcomes.failures += 1
                }
                // The power goes now (at the chosen sync point, or right after the restore returned).
                let crashed = crashvfs_crashed() != 0
                let image = try CrashDisk.writeCrashImage(directory, "after")
                let writes = tear ? "torn (round \(round))" : "dropped"
                let comment: Comment = "seed \(seed), \(writes) writes, crash at sync \(point), crashed \(crashed)"
                _ = try CrashDisk.expectHealthy(image, comment)
                if try canonicalDump(image) == old {
                    outcomes.old += 1
                    #expect(report == nil, "the restore reported success, but the old store came back; \(comment)")
                } else {
                    outcomes.restored += 1
                    #expect(try Self.rowsOfARestore(image) == restored,
                            "neither the old store nor the restored one; \(comment)")
                    if let report {
                        #expect(try AnnotationStore.open(path: image, access: .readOnly).deviceID == report.deviceID,
                                comment)
                    }
                    // New pages reached the store only after the old one was copied to the `.bak`.
                    let baks = try Self.baks(beside: live)
                    #expect(baks.count == 1, "\(baks); \(comment)")
                    for bak in baks {
                        #expect(try AnnotationStore.open(path: bak, access: .readOnly).verify().problems == [],
                                comment)
                        #expect(try canonicalDump(bak) == old, "the .bak is not the old store; \(comment)")
                    }
                }
                if !crashed {
                    #expect(report != nil, "the restore failed without a crash; \(comment)")
                    print("power loss during a restore: \(point - 1) sync points, \(writes) writes")
                    #expect(point > 1, "the copy into the store never synced; \(comment)")
                    break
                }
                point += 1
                try #require(point < 1000, "the restore never completed")
            }
        }
        crashvfs_reset()
        print("power loss during a restore: \(outcomes.old) crashes left the old store, \(outcomes.restored) the "
            + "restored one; \(outcomes.failures) restores failed (seed \(seed))")
        #expect(outcomes.old > 0 && outcomes.restored > 0, "the sweep never crashed both before and after the commit")
    }
}
