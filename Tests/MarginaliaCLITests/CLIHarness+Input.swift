import Foundation
import Testing

/// Runs of the binary with standard input, through a shell pipeline, or on a terminal.
extension CLIWorkspace {
    /// The environment `run` gives the binary, with `PATH` led by the binary's directory.
    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["MARGINALIA_STORE"] = store
        environment["MARGINALIA_CONTENT"] = content
        environment["XDG_CACHE_HOME"] = path("cache")
        environment["XDG_DATA_HOME"] = path("data")
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        environment["PATH"] = Self.binary.deletingLastPathComponent().path + ":" + path
        for (key, value) in extra { environment[key] = value }
        return environment
    }

    /// Runs `marginalia ARGS` with `input` on its standard input.
    func run(_ arguments: [String], input: Data, environment extra: [String: String] = [:]) throws -> CLIResult {
        try Self.launch(Self.binary, arguments, input: input, environment: environment(extra))
    }

    /// Runs `script` with bash (`pipefail` on) in the workspace directory, with `environment` added to this
    /// workspace's (or, with `replacing`, as the whole environment).
    func shell(_ script: String, environment extra: [String: String] = [:], replacing: Bool = false) throws
        -> CLIResult
    {
        try Self.launch(URL(fileURLWithPath: "/bin/bash"), ["-o", "pipefail", "-c", script], input: nil,
                        environment: replacing ? extra : environment(extra), directory: directory)
    }

    /// Runs `marginalia ARGS` with stdin, stdout and stderr on a pseudo-terminal (through script(1)); returns
    /// what the terminal showed, line ends as the terminal gives them (CR LF).
    func runOnTerminal(_ arguments: [String], environment extra: [String: String] = [:]) throws -> CLIResult {
        let command = ([Self.binary.path] + arguments).map(Self.shellQuoted).joined(separator: " ")
        return try Self.launch(URL(fileURLWithPath: "/usr/bin/script"), ["-qec", command, "/dev/null"],
                               input: Data(), environment: environment(extra), directory: directory)
    }

    /// Whether script(1) is there to give a command a terminal.
    static let hasScript = FileManager.default.isExecutableFile(atPath: "/usr/bin/script")

    static func shellQuoted(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    private static func launch(_ executable: URL, _ arguments: [String], input: Data?, environment: [String: String],
                               directory: URL? = nil) throws -> CLIResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        // Input comes from a file, not a pipe: a child that stops reading early cannot make a write here fail.
        var inputFile: URL?
        defer { if let inputFile { try? FileManager.default.removeItem(at: inputFile) } }
        if let input {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("marginalia-stdin-\(UUID())")
            try input.write(to: file)
            inputFile = file
            process.standardInput = try FileHandle(forReadingFrom: file)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        // stderr is drained on another thread while stdout is read here, so that neither pipe can fill and block.
        let group = DispatchGroup()
        let errorData = Collected()
        DispatchQueue.global().async(group: group) {
            errorData.data = errors.fileHandleForReading.readDataToEndOfFile()
        }
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return CLIResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errorData.data, as: UTF8.self))
    }
}

/// Bytes one thread collects and another reads once the first is done (a DispatchGroup orders the two).
final class Collected: @unchecked Sendable {
    var data = Data()
}
