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
}
