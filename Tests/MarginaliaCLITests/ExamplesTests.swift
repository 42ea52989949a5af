import Foundation
import Testing

/// Every example in README.md and in `help` runs, in the order written, on the bundled sample.
///
/// The examples are found, not listed: every line of README's ```sh blocks except those that install or build
/// (first word `sudo` or `swift`), and every line of the EXAMPLES section of `help` for each command the top-level
/// help lists (in its order). Each sequence runs in a scratch directory of its own that is also HOME, with
/// `samples/` linked into it, no `MARGINALIA_STORE` or `MARGINALIA_CONTENT` (so the default store under
/// XDG_DATA_HOME and the bundled sample are used), and the built binary first on PATH. Each line runs with bash
/// (`pipefail` on) and must exit 0. An example that needs an id takes one an earlier example made or lists, e.g.
/// `marginalia show $(marginalia highlight luceafarul.3)`; one that needs a file uses one an earlier example wrote.
@Suite(.serialized) struct ExamplesTests {
    /// The package's README.
    static let readme = CLIWorkspace.samples.deletingLastPathComponent().appendingPathComponent("README.md")

    /// The lines of README's ```sh blocks that are examples of the tool, in order.
    static func readmeExamples() throws -> [String] {
        let text = try String(contentsOf: readme, encoding: .utf8)
        var examples: [String] = []
        var inBlock = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inBlock = !inBlock && line == "```sh"
                continue
            }
            guard inBlock else { continue }
            let command = line.trimmingCharacters(in: .whitespaces)
            let first = command.split(separator: " ").first.map(String.init) ?? ""
            guard !command.isEmpty, !command.hasPrefix("#"), first != "sudo", first != "swift" else { continue }
            examples.append(command)
        }
        return examples
    }

    /// The EXAMPLES lines of `help` for every command the top-level help lists, in its order.
    static func helpExamples(_ workspace: CLIWorkspace) throws -> [String] {
        let top = try workspace.ok(["--help"])
        let listing = top.components(separatedBy: "SUBCOMMANDS:\n").dropFirst().first?
            .components(separatedBy: "\n\n").first ?? ""
        // A command's row starts two spaces in; its summary may wrap onto lines indented further.
        let names = listing.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .map { $0.trimmingCharacters(in: .whitespaces).components(separatedBy: "  ")[0] }
        var examples: [String] = []
        for name in names {
            let help = try workspace.ok(["help"] + name.split(separator: " ").map(String.init))
            guard let section = help.components(separatedBy: "\nEXAMPLES:\n").dropFirst().first else { continue }
            for line in section.split(separator: "\n") {
                guard line.hasPrefix("  "), !line.hasPrefix("  See 'marginalia") else { break }
                examples.append(line.trimmingCharacters(in: .whitespaces))
            }
        }
        return examples
    }

    /// Runs `examples` in order in a fresh scratch directory; returns the failures, each with its output.
    static func run(_ examples: [String]) throws -> [String] {
        let workspace = try CLIWorkspace(sample: nil)
        try FileManager.default.createSymbolicLink(at: workspace.directory.appendingPathComponent("samples"),
                                                   withDestinationURL: CLIWorkspace.samples)
        var environment = workspace.environment(["HOME": workspace.directory.path, "MARGINALIA_SAMPLES":
            CLIWorkspace.samples.path])
        environment["MARGINALIA_STORE"] = nil
        environment["MARGINALIA_CONTENT"] = nil
        environment["NO_COLOR"] = "1"
        var failures: [String] = []
        for (index, example) in examples.enumerated() {
            let result = try workspace.shell(example, environment: environment, replacing: true)
            if result.status != 0 {
                failures.append("example \(index + 1) '\(example)' exited \(result.status): \(result.stderr)")
            }
        }
        return failures
    }

    @Test func everyReadmeExampleRunsInOrder() throws {
        let examples = try Self.readmeExamples()
        #expect(examples.count >= 40)
        #expect(examples.contains("marginalia search stiinta"))
        let failures = try Self.run(examples)
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test func everyHelpExampleRunsInOrder() throws {
        let workspace = try CLIWorkspace(sample: nil)
        let examples = try Self.helpExamples(workspace)
        #expect(examples.count >= 40)
        #expect(examples.contains("marginalia highlight luceafarul.4 --quote \"fată\" --tag eroina"))
        #expect(examples.contains("marginalia read luceafarul.1"))
        let failures = try Self.run(examples)
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test func aFailingExampleIsReported() throws {
        // The runner itself can fail: an example whose id was made up, as the old ones were.
        let failures = try Self.run(["marginalia init", "marginalia show 3f1c2a9e"])
        #expect(failures.count == 1)
        // Its stderr says first that the bundled content is being built (its first use here), then the error.
        let failure = try #require(failures.first)
        #expect(failure.hasPrefix("example 2 'marginalia show 3f1c2a9e' exited 1: "), "\(failure)")
        #expect(failure.contains("Error: no annotation"), "\(failure)")
    }
}
