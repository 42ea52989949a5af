import Foundation
import MarginaliaTestSupport
import Testing

/// A NUL byte in a file of another tool is refused by name, file and line, as the file is read: never taken for a
/// damaged store, and the store stays as it was (and verifies).
@Suite struct DisallowedCharacterCLITests {
    @Test func aNULInAnyImportFormatNamesTheFileLineAndField() throws {
        let workspace = try CLIWorkspace(sample: "eminescu-2026.1.json")
        try workspace.ok(["note", "luceafarul.3", "already here"])
        let w3c = workspace.path("export.w3c.json")
        try workspace.ok(["export", w3c, "--format", "w3c"])
        let csv = workspace.path("export.csv")
        try workspace.ok(["export", csv, "--format", "csv"])
        let samples = CLIWorkspace.samples.path
        // Each file with a NUL put into its first highlight's text (or note), and the line that text starts on.
        let cases: [(name: String, source: String, replace: String, by: String, format: String)] = [
            ("clippings.txt", samples + "/my-clippings.txt", "Lună tu", "Lună\u{0}tu", "kindle"),
            ("koreader.json", samples + "/koreader-poezii.json", "\"text\": \"", "\"text\": \"\\u0000", "koreader"),
            ("readwise.csv", samples + "/readwise-export.csv", "Când cu gene", "Când\u{0}cu gene", "readwise"),
            ("w3c.json", w3c, "already here", "already\\u0000here", "w3c"),
            ("notes.csv", csv, "already here", "already\u{0}here", "csv"),
        ]
        let before = try workspace.bytes(workspace.store)
        for item in cases {
            let text = try String(contentsOfFile: item.source, encoding: .utf8)
            #expect(text.contains(item.replace), "\(item.name)")
            let path = workspace.path(item.name)
            try Data(text.replacingOccurrences(of: item.replace, with: item.by).utf8)
                .write(to: URL(fileURLWithPath: path))
            let refused = try workspace.run(["import", path, "--format", item.format])
            #expect(refused.status == 65, "\(item.name): \(refused.stderr)")
            #expect(refused.stderr.hasPrefix("Error: \(path): line ")
                && refused.stderr.contains("contains a NUL character (U+0000)")
                && !refused.stderr.contains("damaged"), "\(item.name): \(refused.stderr)")
            #expect(try workspace.bytes(workspace.store) == before, "\(item.name)")
        }
        #expect(try workspace.ok(["verify"]).hasPrefix("ok"))
    }
}
