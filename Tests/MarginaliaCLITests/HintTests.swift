import Foundation
import MarginaliaTestSupport
import Testing

/// A command a message suggests runs as printed: it carries the `--store` and `--content` the user gave.
@Suite struct HintTests {
    /// The commands a message suggests ("…, run: marginalia …" to the end of its line).
    static func suggestions(in text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            line.range(of: "run: marginalia ").map { String(line[$0.lowerBound...].dropFirst(5)) }
        }
    }

    @Test func theAnchorsHintRunsAsPrintedOnTheContentGiven() throws {
        let workspace = try CLIWorkspace()
        let edition2 = workspace.path("poezii 2.db")
        try workspace.ok(["content", "build", CLIWorkspace.samples.appendingPathComponent("tiny-2.json").path,
                          "-o", edition2])
        let store = workspace.path("my notes.db")
        try workspace.ok(["--store", store, "highlight", "mai-am-un-singur-dor.3", "--quote", "lăsaţi"])
        // No MARGINALIA_CONTENT: the content is what the command line gives.
        let checked = try workspace.run(["--store", store, "--content", edition2, "anchors"],
                                        environment: ["MARGINALIA_CONTENT": ""])
        #expect(checked.status == 0, "\(checked.stderr)")
        let hints = Self.suggestions(in: checked.stderr)
        #expect(hints.count == 1, "\(checked.stderr)")
        let hint = try #require(hints.first)
        #expect(hint.contains("--content") && hint.contains("--store"))
        let ran = try ChildProcess("/bin/sh", ["-c", hint],
                                   environment: workspace.environment(["MARGINALIA_CONTENT": ""])).run()
        #expect(ran.status == 0, "\(hint): \(ran.stderr)")
        #expect(String(decoding: ran.output, as: UTF8.self).contains("on edition tiny-2"))
    }
}
