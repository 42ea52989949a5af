import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Wall-clock timing of in-process work.
enum Timing {
    /// Seconds on the monotonic clock.
    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// Runs `body` once and returns its result and its wall time in seconds.
    static func time<T>(_ body: () throws -> T) rethrows -> (T, Double) {
        let start = now()
        let result = try body()
        return (result, now() - start)
    }

    /// The median wall time of up to `maxRepeats` runs: a run that takes longer than `budget` seconds is not
    /// repeated. `prepare` runs before each timed run, untimed (a fresh store for an import, say).
    static func median(maxRepeats: Int, budget: Double = 10, prepare: () throws -> Void = {},
                       _ body: () throws -> Void) rethrows -> Double {
        var times: [Double] = []
        repeat {
            try prepare()
            let (_, seconds) = try time(body)
            times.append(seconds)
        } while times.count < maxRepeats && times.reduce(0, +) < budget * Double(times.count)
        return percentile(times, 50)
    }

    /// The `p`-th percentile (0…100) by linear interpolation between the closest ranks.
    /// `first` and `second` timed in turns, `pairs` times each, the one that goes first alternating so that both
    /// see the same cache; one pair before them warms up, unmeasured. Each closure returns its own seconds.
    static func interleaved(pairs: Int, _ first: () throws -> Double, _ second: () throws -> Double) rethrows
        -> (first: [Double], second: [Double])
    {
        var firsts: [Double] = []
        var seconds: [Double] = []
        for index in 0...pairs {
            let (a, b): (Double, Double)
            if index % 2 == 0 {
                a = try first()
                b = try second()
            } else {
                b = try second()
                a = try first()
            }
            guard index > 0 else { continue }
            firsts.append(a)
            seconds.append(b)
        }
        return (firsts, seconds)
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = p / 100 * Double(sorted.count - 1)
        let lower = Int(rank.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * (rank - Double(lower))
    }
}

/// A child process: its exit status, wall time, peak resident memory and stderr.
struct ProcessRun {
    var status: Int32
    var seconds: Double
    /// Peak resident set size in KiB: `/usr/bin/time -v`'s "Maximum resident set size" when it ran under it,
    /// else the child's `ru_maxrss` from `wait4` (the same number GNU time prints).
    var maxResidentKiB: Int
    var stderr: String

    var peakMiB: Double { Double(maxResidentKiB) / 1024 }
}

/// Runs programs the benchmark compares against, without a shell unless asked for one.
enum Subprocess {
    /// Whether `/usr/bin/time` is there to report peak memory.
    static let hasGNUTime = FileManager.default.isExecutableFile(atPath: "/usr/bin/time")

    /// Runs `arguments` (the first is looked up on PATH), stdout to `stdout` (a path, or /dev/null).
    ///
    /// - Parameters:
    ///   - underTime: run it under `/usr/bin/time -v` (when present) and read its peak memory there.
    ///   - accepting: the exit codes besides 0 that are an outcome to measure, not a failure.
    /// - Throws: `BenchError` when it cannot start or exits with a failure.
    @discardableResult
    static func run(_ arguments: [String], stdout: String = "/dev/null", underTime: Bool = false,
                    accepting: Set<Int32> = []) throws -> ProcessRun {
        let wrapped = underTime && hasGNUTime ? ["/usr/bin/time", "-v"] + arguments : arguments
        let errorFile = FileManager.default.temporaryDirectory
            .appendingPathComponent("marginalia-bench-\(getpid())-\(UUID().uuidString).err").path
        defer { unlink(errorFile) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errorFile, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv: [UnsafeMutablePointer<CChar>?] = wrapped.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let start = Timing.now()
        let rc = posix_spawnp(&pid, wrapped[0], &actions, nil, argv, environ)
        guard rc == 0 else { throw BenchError("cannot run \(wrapped[0]): \(String(cString: strerror(rc)))") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchError("wait4 failed: \(String(cString: strerror(errno)))") }
        }
        let seconds = Timing.now() - start
        let errorText = (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
        // WIFEXITED / WEXITSTATUS are macros: the low 7 bits are the signal, the next 8 the exit code.
        let exitCode = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        var peak = Int(usage.ru_maxrss)
        if underTime && hasGNUTime, let line = errorText.split(separator: "\n")
            .first(where: { $0.contains("Maximum resident set size") }),
           let kib = Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") {
            peak = kib
        }
        guard exitCode == 0 || accepting.contains(exitCode) else {
            throw BenchError("\(arguments.joined(separator: " ")) exited with \(exitCode):\n\(errorText.suffix(2000))")
        }
        return ProcessRun(status: exitCode, seconds: seconds, maxResidentKiB: peak, stderr: errorText)
    }

    /// Runs a pipeline through `bash -o pipefail -c`, so that a failure anywhere in it is reported.
    @discardableResult
    static func shell(_ script: String) throws -> ProcessRun {
        try run(["bash", "-o", "pipefail", "-c", script])
    }

    /// Whether a program is on PATH.
    static func available(_ program: String) -> Bool {
        (try? run(["sh", "-c", "command -v \(quote(program))"])) != nil
    }

    /// `text` quoted for the shell.
    static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// A benchmark that cannot go on, with the reason.
struct BenchError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

extension Subprocess {
    /// Makes the store at `path` with `marginalia init` when it does not exist (untimed): the tool writes to a
    /// `--store` path only once a store is there.
    static func initStore(_ cli: String, _ path: String) throws {
        guard !FileManager.default.fileExists(atPath: path) else { return }
        try run([cli, "--store", path, "init"])
    }
}
