import Foundation
import MarginaliaTestSupport
import Testing

/// Runs of the binary with standard input, through a shell pipeline, or on a terminal.
extension CLIWorkspace {
    /// Runs `marginalia ARGS` with `input` on its standard input.
    func run(_ arguments: [String], input: Data, environment extra: [String: String] = [:]) throws -> CLIResult {
        try ChildProcess(Self.binary, arguments, environment: environment(extra), input: input).run()
    }

    /// Runs `script` with bash (`pipefail` on) in the workspace directory, with `environment` added to this
    /// workspace's (or, with `replacing`, as the whole environment).
    func shell(_ script: String, environment extra: [String: String] = [:], replacing: Bool = false) throws
        -> CLIResult
    {
        try ChildProcess("/bin/bash", ["-o", "pipefail", "-c", script],
                         environment: replacing ? extra : environment(extra), directory: directory).run()
    }

    /// Runs `marginalia ARGS` with stdin, stdout and stderr on a pseudo-terminal (through script(1)); returns
    /// what the terminal showed, line ends as the terminal gives them (CR LF).
    func runOnTerminal(_ arguments: [String], environment extra: [String: String] = [:]) throws -> CLIResult {
        let command = ([Self.binary.path] + arguments).map(Self.shellQuoted).joined(separator: " ")
        return try ChildProcess("/usr/bin/script", ["-qec", command, "/dev/null"], environment: environment(extra),
                                input: Data(), directory: directory).run()
    }

    /// Whether script(1) is there to give a command a terminal.
    static let hasScript = FileManager.default.isExecutableFile(atPath: "/usr/bin/script")

    static func shellQuoted(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
