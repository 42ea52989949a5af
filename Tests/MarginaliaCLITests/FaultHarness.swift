import Foundation
import Marginalia
import MarginaliaTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Seeds and run counts of the fault-injection tests.
///
/// Every run prints its seed; `MARGINALIA_FAULT_SEED=S` repeats a run, `MARGINALIA_FAULT_RUNS=N` makes each
/// randomized test run N times instead of its default (a few dozen kills in all by default).
enum FaultRuns {
    /// The seed for one test: `MARGINALIA_FAULT_SEED` when set, else a fresh one; printed either way.
    static func seed(_ test: String) -> UInt64 {
        TestSeed.printed(for: test, variable: "MARGINALIA_FAULT_SEED")
    }

    /// `MARGINALIA_FAULT_RUNS` when set, else `fallback`.
    static func count(default fallback: Int) -> Int {
        ProcessInfo.processInfo.environment["MARGINALIA_FAULT_RUNS"].flatMap { Int($0) }.map { max(1, $0) }
            ?? fallback
    }
}

/// What a child run printed before it ended, and whether it ended by itself or by the kill.
struct KilledRun {
    let status: Int32
    let stdout: String
    let stderr: String
    /// The run finished (exited by itself) before the kill arrived.
    let completed: Bool
    /// How long the run lasted, in microseconds (to pick kill times; never asserted on).
    let microseconds: Int

    init(_ result: ChildProcess.Result, microseconds: Int) {
        status = result.status
        stdout = result.stdout
        stderr = result.stderr
        completed = !(result.endedBySignal && result.status == SIGKILL)
        self.microseconds = microseconds
    }
}

extension CLIWorkspace {
    /// Runs `marginalia ARGS` and sends it SIGKILL after `killAfter` microseconds, unless it ended first.
    ///
    /// Without `killAfter` the run goes to its end (a calibration run: how long the work takes).
    func runKilled(_ arguments: [String], killAfter: Int?, environment extra: [String: String] = [:],
                   program: URL = CLIWorkspace.binary, prefix: [String] = []) throws -> KilledRun
    {
        let start = DispatchTime.now().uptimeNanoseconds
        let running = try ChildProcess(program, prefix + arguments, environment: environment(extra)).start()
        if let killAfter {
            if killAfter > 0 { usleep(useconds_t(killAfter)) }
            running.send(SIGKILL)
        }
        let result = running.wait()
        return KilledRun(result, microseconds: Int((DispatchTime.now().uptimeNanoseconds - start) / 1000))
    }
}

/// The checks every store must pass after a crash: it opens as the next command would, SQLite's integrity check
/// and the replay of the log against the tables pass (no data row without its change, or the reverse), and the
/// log's `seq` runs 1…n without a gap.
func expectHealthyAfterCrash(_ path: String, _ comment: Comment) throws {
    let store = try AnnotationStore.open(path: path, access: .readWrite)
    let report = try store.verify()
    #expect(report.problems == [], comment)
    let db = try SQLiteDatabase(path: path, mode: .readOnly)
    let count = try db.int(sql: "SELECT count(*) FROM changes") ?? -1
    let first = try db.int(sql: "SELECT coalesce(min(seq), 1) FROM changes") ?? -1
    let last = try db.int(sql: "SELECT coalesce(max(seq), 0) FROM changes") ?? -1
    #expect(first == 1 && last == count, "changes.seq has a gap: \(count) rows, seq \(first)…\(last); \(comment)")
}

/// The number of changes in the store at `path`.
func changeCount(_ path: String) throws -> Int {
    try AnnotationStore.open(path: path, access: .readOnly).changeCount()
}

/// Copies a closed store (a single file once its last connection closed) to `destination`.
func copyStore(_ source: String, to destination: String) throws {
    for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: destination + suffix) {
        try FileManager.default.removeItem(atPath: destination + suffix)
    }
    try FileManager.default.copyItem(atPath: source, toPath: destination)
}

/// Whether strace is installed (the syscall-injection tests are skipped otherwise).
let hasStrace = FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")

extension CLIWorkspace {
    /// Runs `marginalia ARGS` under `strace -f` with `straceArguments` (such as `-e inject=fsync:error=EIO:when=2`),
    /// strace's own output sent to `trace` (or discarded).
    func runTraced(_ straceArguments: [String], _ arguments: [String], trace: String = "/dev/null") throws
        -> KilledRun
    {
        try runKilled(arguments, killAfter: nil, program: URL(fileURLWithPath: "/usr/bin/strace"),
                      prefix: ["-f", "-qq", "-o", trace] + straceArguments + ["--", Self.binary.path])
    }
}

extension CLIWorkspace {
    /// The temporary files and scratch directories (`.<name>.<purpose>-<uuid>.tmp`) in the workspace directory.
    func temporaryFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix(".") && $0.contains(".tmp") }.sorted()
    }

    /// Runs the next command on `store` (a `list`), after which no temporary file a killed run left beside it
    /// may remain: every command removes the stale ones it can prove are its own.
    func expectNoTemporaryFileOutlivesTheNextRun(store: String, _ comment: Comment) throws {
        let next = try run(["--store", store, "list"])
        #expect(next.status == 0, "\(next.stderr); \(comment)")
        #expect(try temporaryFiles().filter { !Self.isBeingCreated($0) } == [], "left after the next run; \(comment)")
    }

    /// A temporary file killed in the instant between its creation and its rename to the name its lock proves
    /// (`….tmp-new`): no lock can tell it from one a live process is making, so the stale scan removes it only
    /// once it is a minute old, which no test waits for.
    static func isBeingCreated(_ name: String) -> Bool {
        name.hasSuffix(".tmp-new")
    }
}
