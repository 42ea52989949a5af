import Foundation
import Testing

/// Text that came from elsewhere (a note received by sync or import) is shown with its control characters written
/// out, so that it cannot rewrite what the terminal shows; `--json` keeps it, escaped by JSON.
@Suite struct TerminalEscapeTests {
    @Test func controlCharactersInANoteAreShownEscapedAndKeptInJSON() throws {
        let workspace = try CLIWorkspace()
        let hostile = "curat\u{1B}]0;titlu furat\u{07}\u{1B}[2Jșters\rascuns"
        try workspace.ok(["note", "mai-am-un-singur-dor.1", hostile])
        for command in [["list"], ["log"], ["search", "--notes", "curat"]] {
            let result = try workspace.run(command)
            #expect(result.status == 0, "\(command): \(result.stderr)")
            #expect(!result.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0 == "\r" },
                    "\(command) printed a raw control character")
            #expect(result.stdout.contains("curat\\u{1B}]0;titlu furat\\u{7}\\u{1B}[2Jșters\\u{D}ascuns"),
                    "\(command): \(result.stdout)")
        }
        let json = try workspace.run(["list", "--json"])
        #expect(json.stdout.contains("\\u001b") && !json.stdout.unicodeScalars.contains { $0.value == 0x1B })
        let listed = try #require(try json.json() as? [[String: Any]])
        #expect(listed.first?["note"] as? String == hostile)
    }

    @Test(.enabled(if: CLIWorkspace.hasScript))
    func anExportToATerminalShowsControlsEscapedAndAPipeGetsTheBytes() throws {
        let workspace = try CLIWorkspace()
        let hostile = "curat\u{1B}]0;titlu furat\u{07}\u{1B}[2Jșters \u{202E}gnp.exe"
        try workspace.ok(["note", "mai-am-un-singur-dor.1", hostile])
        for format in ["markdown", "csv", "readwise"] {
            let shown = try workspace.runOnTerminal(["export", "-", "--format", format])
            #expect(shown.status == 0, "\(format): \(shown.stderr)")
            #expect(!shown.stdout.unicodeScalars.contains { [0x1B, 0x07, 0x202E].contains($0.value) },
                    "\(format) sent a raw control to the terminal: \(shown.stdout)")
            #expect(shown.stdout.contains("curat\\u{1B}") && shown.stdout.contains("\\u{202E}gnp.exe"),
                    "\(format): \(shown.stdout)")
            let piped = try workspace.run(["export", "-", "--format", format])
            #expect(piped.stdout.unicodeScalars.contains { $0.value == 0x1B }
                && piped.stdout.contains("\u{202E}gnp.exe"), "\(format): a pipe gets the bytes as they are")
        }
    }

    @Test func bidiOverridesAndIsolatesAreShownEscapedNeverApplied() throws {
        let workspace = try CLIWorkspace()
        // U+202E turns what follows around on a terminal: "gnp.exe" would read "exe.png".
        let hostile = "poza\u{202E}gnp.exe și \u{2067}izolat\u{2069}, cu un semn \u{200F} lăsat"
        let id = try workspace.ok(["note", "mai-am-un-singur-dor.1", hostile])
        for command in [["list"], ["show", id], ["history", id], ["log"], ["search", "--notes", "poza"]] {
            let result = try workspace.run(command)
            #expect(result.status == 0, "\(command): \(result.stderr)")
            #expect(!result.stdout.unicodeScalars.contains { Self.bidiControls.contains($0.value) },
                    "\(command) printed a raw bidi control")
            #expect(result.stdout.contains("poza\\u{202E}gnp.exe și \\u{2067}izolat\\u{2069}"),
                    "\(command): \(result.stdout)")
        }
        let listed = try #require(try workspace.run(["list", "--json"]).json() as? [[String: Any]])
        #expect(listed.first?["note"] as? String == hostile)
    }

    static let bidiControls = Set<UInt32>(Array(0x202A...0x202E) + Array(0x2066...0x2069))
}
