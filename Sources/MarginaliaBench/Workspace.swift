import Foundation
import Marginalia

/// The files a run works with: the package's samples and reference script, the built CLI, and a work
/// directory for stores, contents and archives.
final class Workspace {
    let root: String
    let packageRoot: String
    /// Removed at the end when the benchmark made it.
    private let temporary: Bool
    private let fileManager = FileManager.default

    init(options: BenchOptions) throws {
        // The package root: two levels up from this source file, else the working directory.
        let fromSource = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let files = FileManager.default
        let candidates = [fromSource, files.currentDirectoryPath]
        guard let package = candidates.first(where: { files.fileExists(atPath: "\($0)/samples/eminescu-2026.1.json") })
        else {
            throw BenchError("cannot find samples/eminescu-2026.1.json; run from the package directory")
        }
        packageRoot = package
        if let given = options.workdir {
            root = URL(fileURLWithPath: given).standardizedFileURL.path
            temporary = false
        } else {
            root = files.temporaryDirectory.appendingPathComponent("marginalia-bench-\(UUID().uuidString)").path
            temporary = true
        }
        try files.createDirectory(atPath: root, withIntermediateDirectories: true)
        try? files.removeItem(atPath: "\(root)/run")
        try files.createDirectory(atPath: "\(root)/run", withIntermediateDirectories: true)
    }

    deinit {
        if temporary { try? fileManager.removeItem(atPath: root) }
    }

    /// A path for this run's files (cleared at the start of every run).
    func run(_ name: String) -> String { "\(root)/run/\(name)" }

    /// A path for files kept between runs when `--workdir` is given.
    func cache(_ name: String) -> String { "\(root)/\(name)" }

    var sampleEdition1: String { "\(packageRoot)/samples/eminescu-2026.1.json" }
    var sampleEdition2: String { "\(packageRoot)/samples/eminescu-2026.2.json" }
    var pythonReference: String { "\(packageRoot)/Benchmarks/reference/marginalia_ref.py" }

    /// The `marginalia` binary built beside this one (the bench target depends on it, so it is built too).
    var cli: String? {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let path = executable.deletingLastPathComponent().appendingPathComponent("marginalia").path
        return fileManager.isExecutableFile(atPath: path) ? path : nil
    }

    func exists(_ path: String) -> Bool { fileManager.fileExists(atPath: path) }

    func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? fileManager.removeItem(atPath: path + suffix) }
    }

    func size(_ path: String) -> Int {
        ((try? fileManager.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// Copies a store through SQLite's online backup, a consistent snapshot (never the file's bytes).
    func copyStore(_ source: String, to destination: String) throws {
        remove(destination)
        try CConnection.backup(source, to: destination)
    }

    /// Builds a content database from a source, or reuses the one cached under the same name.
    func content(_ source: @autoclosure () throws -> ContentSource, name: String, cached: Bool) throws -> String {
        let path = cached ? cache(name) : run(name)
        if cached && exists(path) { return path }
        try ContentBuilder.build(try source(), output: path)
        return path
    }
}

/// The machine the figures come from, for the report.
enum Machine {
    static func describe() -> [String: Any] {
        var info: [String: Any] = ["cores": ProcessInfo.processInfo.activeProcessorCount,
                                   "memoryGiB": Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824]
        if let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first(where: { $0.hasPrefix("model name") })?
            .split(separator: ":", maxSplits: 1).last {
            info["cpu"] = cpu.trimmingCharacters(in: .whitespaces)
        }
        info["os"] = ProcessInfo.processInfo.operatingSystemVersionString
        var name = utsname()
        uname(&name)
        info["kernel"] = withUnsafeBytes(of: &name.release) {
            String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        info["sqlite"] = (try? SQLiteDatabase.inMemory().text(sql: "SELECT sqlite_version()")) ?? "?"
        return info
    }

    /// The 1-minute load average: other work on the machine skews every figure.
    static func load() -> Double {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return Double(text.split(separator: " ").first ?? "") ?? .nan
    }
}
