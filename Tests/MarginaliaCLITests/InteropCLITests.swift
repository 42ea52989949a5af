import Foundation
import Testing

/// The interop fixtures under Tests/Fixtures.
enum InteropFiles {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    static let romanian = directory.appendingPathComponent("interop/romanian-clippings.txt").path
    static func kindle(_ name: String) -> String {
        directory.appendingPathComponent("peers/kindle-clippings/\(name)").path
    }
}

@Suite struct InteropCLITests {
    @Test func aRomanianClippingsFileImportsOnceWithItsReport() throws {
        let workspace = try CLIWorkspace(sample: "eminescu-2026.2.json")
        let first = try workspace.ok(["import", InteropFiles.romanian])
        #expect(first.contains("Imported 10 kindle items from \(InteropFiles.romanian)"))
        #expect(first.contains("annotations created: 7 (5 anchored to the content, 2 orphaned)"))
        #expect(first.contains("notes on highlights: 1"))
        #expect(first.contains("resized highlights:  1"))
        #expect(first.contains("books not in the content: 1 (1 item, not imported; --keep-unmatched imports them"))
        #expect(first.contains("    Dubliners (James Joyce): 1"))

        let again = try #require(try workspace.run(["import", InteropFiles.romanian, "--json"]).json()
            as? [String: Any])
        #expect(again["format"] as? String == "kindle")
        #expect(again["created"] as? Int == 0)
        #expect(again["duplicates"] as? Int == 7)
        #expect(again["unmatchedItems"] as? Int == 1)
        let books = try #require(again["unmatchedBooks"] as? [[String: Any]])
        #expect(books.first?["title"] as? String == "Dubliners")

        let listed = try #require(try workspace.run(["list", "--json"]).json() as? [[String: Any]])
        #expect(listed.count == 7)
        let note = listed.first { ($0["note"] as? String) != nil && $0["kind"] as? String == "highlight" }
        #expect(note?["quote"] as? String
            == "Lună tu, stăpân-a mării, pe a lumii boltă luneci\nȘi gândirilor dând viață, suferințele întuneci;")
        let orphans = try workspace.ok(["list", "--status", "orphaned"])
        #expect(orphans.contains("kindle:page 30, location 412 of Poezii (Mihai Eminescu)"))
        #expect(orphans.contains("Sara pe deal"))
        // The receipt names the file, its size and its SHA-256; the second import brought nothing, so no receipt.
        let receipts = try #require(try workspace.run(["imports", "--json"]).json() as? [[String: Any]])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: InteropFiles.romanian))
        #expect(receipts.count == 1)
        #expect(receipts.first?["kind"] as? String == "import")
        #expect(receipts.first?["file"] as? String == InteropFiles.romanian)
        #expect(receipts.first?["size"] as? Int == bytes.count)
        let sha = try workspace.shell("sha256sum '\(InteropFiles.romanian)'").stdout.prefix(64)
        #expect(receipts.first?["sha256"] as? String == String(sha))
        try workspace.ok(["verify"])
    }

    @Test func standardInputIsReadAndItsFormatTold() throws {
        let workspace = try CLIWorkspace(sample: "eminescu-2026.2.json")
        let clippings = try workspace.bytes(InteropFiles.romanian)
        // Through a pipe, whose first bytes are put back for the reader once the format is told.
        let piped = try workspace.run(["import", "-", "--dry-run"], input: clippings)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout.hasPrefix("Would import 10 kindle items from stdin"))
        #expect(piped.stderr.contains("Dry run: nothing was written"))
        #expect(!FileManager.default.fileExists(atPath: workspace.store))
        // From a file given as standard input.
        let file = CLIWorkspace.shellQuoted(InteropFiles.romanian)
        let redirected = try workspace.shell("marginalia import - --json < \(file)")
        #expect(redirected.status == 0, "\(redirected.stderr)")
        #expect((try redirected.json() as? [String: Any])?["created"] as? Int == 7)
        let again = try workspace.run(["import", "-", "--format", "kindle"], input: clippings)
        #expect(again.status == 0)
        #expect(again.stdout.contains("already here:        7"))
    }

    @Test(arguments: ["kindle4_clippings.txt", "old_gen_kindle_clippings.txt", "paperwhite_clippings.txt",
                      "touch_clippings.txt"])
    func everyPeerFileIsToldAndRead(_ name: String) throws {
        let workspace = try CLIWorkspace(sample: "tiny.json")
        let result = try workspace.run(["import", InteropFiles.kindle(name), "--keep-unmatched", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(try result.json() as? [String: Any])
        #expect(report["format"] as? String == "kindle")
        #expect((report["created"] as? Int ?? 0) > 0)
        #expect(report["orphaned"] as? Int == report["created"] as? Int)
    }

    @Test func badInputIsRefusedAndChangesNothing() throws {
        let workspace = try CLIWorkspace(sample: "tiny.json")
        try workspace.ok(["init"])
        let before = try workspace.bytes(workspace.store)
        let broken = workspace.path("broken.txt")
        try Data("Book\n- Your Highlight Location 1-2\n\ntext\n==========\nNo description\n==========\n".utf8)
            .write(to: URL(fileURLWithPath: broken))
        let refused = try workspace.run(["import", broken, "--format", "kindle"])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("broken.txt: line 6: a clipping has a title but no line describing it"))
        let unknown = try workspace.run(["import", broken, "--format", "kobo"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("--format is archive, kindle, koreader, readwise, w3c, csv, calibre, not 'kobo'"))
        let text = workspace.path("notes.txt")
        try Data("just some notes\n".utf8).write(to: URL(fileURLWithPath: text))
        // Not another tool's format, nor an archive: the formats import reads are named; Markdown is export-only.
        let notes = workspace.path("notes.md")
        try Data("# My notes\n\nhello\n".utf8).write(to: URL(fileURLWithPath: notes))
        for file in [text, notes] {
            let refusedFile = try workspace.run(["import", file])
            #expect(refusedFile.status == 65)
            #expect(refusedFile.stderr.contains("\(file): not a file import reads"), "\(refusedFile.stderr)")
            #expect(refusedFile.stderr.contains("kindle") && refusedFile.stderr.contains("Markdown is written by"))
        }
        #expect(try workspace.bytes(workspace.store) == before)
    }

    @Test func exportWritesMarkdownW3CAndCSV() throws {
        let workspace = try CLIWorkspace(sample: "eminescu-2026.2.json")
        try workspace.ok(["import", InteropFiles.romanian])
        let markdown = try workspace.run(["export", "-", "--format", "markdown", "--document", "scrisoarea-i"])
        #expect(markdown.status == 0)
        #expect(markdown.stdout.contains("\n## Scrisoarea I\n"))
        #expect(!markdown.stdout.contains("Mai am un singur dor"))
        #expect(markdown.stderr == "Exported 4 annotations as markdown\n")
        let w3c = workspace.path("notes.json")
        try workspace.ok(["export", w3c, "--format", "w3c"])
        let other = try workspace.run(["--store", try workspace.newStore("other.db"), "import", w3c, "--json"])
        #expect(other.status == 0, "\(other.stderr)")
        #expect((try other.json() as? [String: Any])?["created"] as? Int == 7)
        #expect(try workspace.run(["export", w3c, "--format", "w3c"]).status == 1)
        let csv = try workspace.run(["export", "-", "--format", "readwise", "--since", "2026-12-01T00:00:00Z"])
        #expect(csv.stdout.hasPrefix("Highlight,Title,Author,URL,Note,Location,Date\r\n"))
        #expect(csv.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count == 3)
        let bogus = try workspace.run(["export", "-", "--format", "pdf"])
        #expect(bogus.status == 64)
        #expect(bogus.stderr.contains("--format is archive, markdown, w3c, csv, readwise, calibre, not 'pdf'"))
    }
}
