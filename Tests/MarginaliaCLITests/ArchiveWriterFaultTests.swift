import Foundation
import Marginalia
import MarginaliaTestSupport
import Testing

/// Failures of the archive writer's system calls (reliability plan A.5), injected with `strace -e inject`: the
/// Nth `write`, `fsync`, `fdatasync`, `rename` or `close` of an export or a backup fails. The command must then
/// fail (non-zero exit, an error on stderr, no success line), and the destination must be what it was (absent,
/// or the earlier backup) unless the complete, verified new archive is already under its name (a failure after
/// the rename: the directory's flush). Skipped when strace is missing (`.ci/run` installs it).
@Suite(.serialized) struct ArchiveWriterFaultTests {
    struct Injection {
        let syscalls: String
        let error: String
        /// A failure of any of these calls must fail the command: they all belong to the archive.
        let alwaysFatal: Bool
    }

    static let injections = [
        // The archive writer flushes with fsync; SQLite (the backup's scratch store) with fdatasync, and it ignores a
        // failed flush of a directory by design, which is harmless for a scratch store thrown away afterwards.
        Injection(syscalls: "fsync", error: "EIO", alwaysFatal: true),
        Injection(syscalls: "fdatasync", error: "EIO", alwaysFatal: false),
        Injection(syscalls: "rename,renameat,renameat2", error: "EIO", alwaysFatal: true),
        Injection(syscalls: "write", error: "ENOSPC", alwaysFatal: false),
        Injection(syscalls: "close", error: "EIO", alwaysFatal: false),
    ]

    /// How many calls of `syscalls` the command makes when nothing fails.
    static func callCount(_ workspace: CLIWorkspace, _ syscalls: String, _ arguments: [String]) throws -> Int {
        let trace = workspace.path("count.trace")
        let run = try workspace.runTraced(["-e", "trace=\(syscalls)"], arguments, trace: trace)
        try #require(run.status == 0, "\(run.stderr)")
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        return lines.filter { !$0.contains("resumed>") && !$0.contains("+++") && !$0.contains("---") }.count
    }

    /// Sweeps every injection over `arguments` (which write `target`), N = 1…the call count (or, when there are
    /// more calls than `limit`, a seeded sample of `limit` of them).
    static func sweep(_ test: String, _ workspace: CLIWorkspace, _ arguments: [String], target: String,
                      before: Data?, changes: Int, limit: Int) throws {
        let seed = FaultRuns.seed(test)
        var random = SeededGenerator(seed: seed)
        var failed = 0
        for injection in injections {
            if let before { try before.write(to: URL(fileURLWithPath: target)) }
            let count = try callCount(workspace, injection.syscalls, arguments)
            var points = Array(1...max(1, count))
            if points.count > limit { points = Array(points.shuffled(using: &random).prefix(limit)).sorted() }
            for point in points {
                if let before {
                    try before.write(to: URL(fileURLWithPath: target))
                } else if FileManager.default.fileExists(atPath: target) {
                    try FileManager.default.removeItem(atPath: target)
                }
                let inject = "inject=\(injection.syscalls):error=\(injection.error):when=\(point)"
                let run = try workspace.runTraced(["-e", inject], arguments)
                let comment: Comment = "seed \(seed), \(injection.syscalls) call \(point) of \(count) fails"
                if injection.alwaysFatal { #expect(run.status != 0, "\(run.stderr); \(comment)") }
                if run.status != 0 {
                    failed += 1
                    #expect(!run.stdout.contains("Backed up") && !run.stderr.contains("Exported"),
                            "success claimed: \(run.stdout)\(run.stderr); \(comment)")
                }
                let present = FileManager.default.fileExists(atPath: target)
                let now = present ? try workspace.bytes(target) : nil
                if run.status == 0 || (present && now != before) {
                    // Whatever is under the name, unless it is the old file, is the complete new archive.
                    let verification = try ArchiveVerifier.verify(path: target)
                    #expect(verification.summary.counts.changes == changes, comment)
                } else if before != nil {
                    #expect(present, "the earlier backup vanished; \(comment)")
                }
            }
        }
        #expect(failed > 0, "no injected failure failed the command (seed \(seed))")
        let store = try AnnotationStore.open(path: workspace.store, access: .readOnly)
        #expect(try store.verify().problems == [])
    }

    static func populatedWorkspace() throws -> CLIWorkspace {
        let workspace = try CLIWorkspace()
        for index in 0..<3 { try workspace.ok(["note", "mai-am-un-singur-dor.2", "note \(index)"]) }
        return workspace
    }

    @Test(.enabled(if: hasStrace, "strace is not installed")) func anExportWhoseWriteSyncRenameOrCloseFailsFails()
        throws
    {
        let workspace = try Self.populatedWorkspace()
        let target = workspace.path("export.jsonl.gz")
        // --force: each run after the first finds the previous run's archive under the name.
        try Self.sweep("syscall failures during export", workspace, ["export", target, "--force"], target: target,
                       before: nil, changes: 3, limit: 12)
    }

    @Test(.enabled(if: hasStrace, "strace is not installed")) func aBackupWhoseWriteSyncRenameOrCloseFailsFails()
        throws
    {
        let workspace = try Self.populatedWorkspace()
        let target = workspace.path("backup.jsonl.gz")
        try workspace.ok(["backup", target])
        let old = try workspace.bytes(target)
        try workspace.ok(["note", "mai-am-un-singur-dor.3", "after the first backup"])
        try Self.sweep("syscall failures during backup", workspace, ["backup", target], target: target,
                       before: old, changes: 4, limit: 8)
    }
}
