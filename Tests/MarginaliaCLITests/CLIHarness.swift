import Foundation
import MarginaliaTestSupport
import Testing

/// What one run of the `marginalia` binary (or of another program) printed and returned.
typealias CLIResult = ChildProcess.Result

extension ChildProcess.Result {
    /// stdout parsed as JSON.
    func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(stdout.utf8), options: [.fragmentsAllowed])
    }
}

/// A scratch directory with a store path, a content database built from a sample, and the binary to run.
final class CLIWorkspace {
    let directory: URL
    let store: String
    var content: String

    /// The built `marginalia` binary, beside the test bundle.
    static let binary: URL = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if let executable = Bundle.main.executableURL { directory = executable.deletingLastPathComponent() }
        while !directory.path.isEmpty && directory.path != "/" {
            let candidate = directory.appendingPathComponent("marginalia")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/marginalia")
    }()

    /// The package's `samples` directory.
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("samples")

    init(sample: String? = "tiny.json") throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("marginalia-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = directory.appendingPathComponent("user.db").path
        content = directory.appendingPathComponent("content.db").path
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("tmp"),
                                                withIntermediateDirectories: true)
        if let sample {
            try FileManager.default.copyItem(atPath: try Self.builtContent(sample), toPath: content)
        }
    }

    /// The content database of `sample`, built once per test process by the binary itself (`content build`) and
    /// copied into each workspace: a content database is read-only, and building one reads the lemma table.
    static func builtContent(_ sample: String) throws -> String {
        try BuiltOnce.shared.value(for: "cli-\(sample)") { directory in
            let output = "\(directory)/\(sample).db"
            let built = try ChildProcess(binary, ["content", "build", samples.appendingPathComponent(sample).path,
                                                  "--output", output]).run()
            guard built.status == 0 else { throw CLIFailure(result: built) }
            return output
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// The environment the binary runs in: this process's, with this workspace's store, content, XDG
    /// directories and temporary directory (`TMPDIR`, so that what a command writes there is seen and removed with
    /// the workspace) and with `PATH` led by the binary's directory (so that a script can call `marginalia`), then
    /// `extra`.
    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = path("tmp")
        environment["MARGINALIA_STORE"] = store
        environment["MARGINALIA_CONTENT"] = content
        environment["XDG_CACHE_HOME"] = path("cache")
        environment["XDG_DATA_HOME"] = path("data")
        environment["XDG_CONFIG_HOME"] = path("config")
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        environment["PATH"] = Self.binary.deletingLastPathComponent().path + ":" + path
        for (key, value) in extra { environment[key] = value }
        return environment
    }

    /// Runs `marginalia ARGS` with this workspace's store and content, and `/dev/null` on its standard input.
    @discardableResult
    func run(_ arguments: [String], environment extra: [String: String] = [:]) throws -> CLIResult {
        try ChildProcess(Self.binary, arguments, environment: environment(extra)).run()
    }

    /// Runs a command that must succeed, and returns its stdout without the final line feed.
    @discardableResult
    func ok(_ arguments: [String], environment: [String: String] = [:]) throws -> String {
        let result = try run(arguments, environment: environment)
        guard result.status == 0 else { throw CLIFailure(result: result) }
        return result.stdout.trimmingCharacters(in: .newlines)
    }

    /// Runs the stock `sqlite3` shell on `database`.
    func sqlite(_ database: String, _ sql: String) throws -> CLIResult {
        try ChildProcess("/usr/bin/sqlite3", [database, sql]).run()
    }

    /// The bytes of a file.
    func bytes(_ path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path))
    }
}

/// A command expected to succeed did not.
struct CLIFailure: Error, CustomStringConvertible {
    let result: CLIResult
    var description: String { "exit \(result.status)\nstdout: \(result.stdout)\nstderr: \(result.stderr)" }
}

/// Whether the stock sqlite3 shell is installed (the tests that use it are skipped otherwise).
let hasSQLiteShell = FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")

extension CLIWorkspace {
    /// A new store named `name` in the workspace, made with `init` (a write to a `--store` path that does not exist
    /// is refused); its path.
    func newStore(_ name: String) throws -> String {
        let store = path(name)
        try ok(["--store", store, "init"])
        return store
    }
}
