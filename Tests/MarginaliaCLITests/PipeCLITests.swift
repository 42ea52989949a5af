import Foundation
import Testing

/// Pipes and files: `import -`, `export -` on a terminal, notes and titles from standard input or a file.
@Suite struct PipeCLITests {
    @Test func exportToImportThroughAPipeMovesNotesBetweenStores() throws {
        let workspace = try CLIWorkspace()
        let laptop = try workspace.newStore("laptop.db")
        let note = try workspace.ok(["--store", laptop, "note", "mai-am-un-singur-dor.1", "scrisă pe laptop"])
        let highlight = try workspace.ok(["--store", laptop, "highlight", "mai-am-un-singur-dor.3", "--tag", "ţară"])
        try workspace.ok(["highlight", "mai-am-un-singur-dor.2"])
        let piped = try workspace.shell("marginalia --store laptop.db export - | marginalia import - --json")
        #expect(piped.status == 0, "\(piped.stderr)")
        let report = try #require(try piped.json() as? [String: Any])
        #expect(report["newChanges"] as? Int == 2 && report["annotationsCreated"] as? Int == 2)
        let listed = try #require(try workspace.run(["list", "--json"]).json() as? [[String: Any]])
        #expect(Set(listed.compactMap { $0["id"] as? String }).isSuperset(of: [note, highlight]))
        #expect(listed.contains { $0["note"] as? String == "scrisă pe laptop" })
        // The same stream again changes nothing.
        let again = try workspace.shell("marginalia --store laptop.db export - | marginalia import -")
        #expect(again.status == 0 && again.stdout.hasPrefix("Imported 2 changes: 0 new, 2 already here\n"))
    }

    @Test func aDamagedStreamOnStandardInputChangesNothing() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["highlight", "mai-am-un-singur-dor.2"])
        let archive = workspace.path("a.jsonl.gz")
        try workspace.ok(["export", archive])
        let before = try workspace.bytes(workspace.store)
        var bytes = try workspace.bytes(archive)
        bytes = bytes.prefix(bytes.count - 9)
        let cut = try workspace.run(["import", "-"], input: bytes)
        #expect(cut.status == 65 && cut.stdout.isEmpty)
        #expect(cut.stderr.hasPrefix("Error: /dev/stdin"), "\(cut.stderr)")
        let notGzip = try workspace.run(["import", "-"], input: Data("not an archive\n".utf8))
        #expect(notGzip.status == 65)
        #expect(try workspace.bytes(workspace.store) == before)
        let whole = try workspace.run(["import", "-", "--dry-run"], input: try workspace.bytes(archive))
        #expect(whole.status == 0 && whole.stdout.hasPrefix("Would import 1 change: 0 new, 1 already here"))
    }

    @Test(.enabled(if: CLIWorkspace.hasScript))
    func aTerminalIsNeitherAnArchiveSourceNorAnArchiveTarget() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["highlight", "mai-am-un-singur-dor.2"])
        let before = try workspace.bytes(workspace.store)
        let export = try workspace.runOnTerminal(["export", "-"])
        #expect(export.status == 64)
        #expect(export.stdout.contains("Error: will not write a compressed archive to a terminal; redirect it, e.g. "
            + "'marginalia export - > notes.jsonl.gz', or name a FILE"))
        #expect(!export.stdout.contains("\u{1F}\u{FFFD}"))
        let `import` = try workspace.runOnTerminal(["import", "-"])
        #expect(`import`.status == 64)
        #expect(`import`.stdout.contains("Error: '-' reads the archive from standard input, which is a terminal here; "
            + "pipe one in, e.g. 'ssh laptop marginalia export - | marginalia import -', or name a FILE"))
        #expect(try workspace.bytes(workspace.store) == before)
    }

    @Test func aLongNoteComesWholeFromStandardInputOrAFile() throws {
        let workspace = try CLIWorkspace()
        // 280 KB of several-byte characters and line breaks, ending with the line feed a file ends with.
        var text = ""
        var line = 0
        while text.utf8.count < 280 * 1024 {
            line += 1
            text += "Rândul \(line): ştiinţă, știință — “ghilimele” și\ttab; 🌙\n"
        }
        #expect(text.utf8.count >= 280 * 1024)
        let fromInput = try workspace.run(["note", "mai-am-un-singur-dor.1", "-"], input: Data(text.utf8))
        #expect(fromInput.status == 0, "\(fromInput.stderr)")
        let id = fromInput.stdout.trimmingCharacters(in: .newlines)
        let shown = try #require(try workspace.run(["show", id, "--json"]).json() as? [String: Any])
        #expect(shown["note"] as? String == String(text.dropLast()))

        let file = workspace.path("note.txt")
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        let fromFile = try workspace.ok(["highlight", "mai-am-un-singur-dor.2", "--note-file", file])
        let filed = try #require(try workspace.run(["show", fromFile, "--json"]).json() as? [String: Any])
        #expect(filed["note"] as? String == String(text.dropLast()))

        let edited = try workspace.run(["edit", id, "--note", "-"], input: Data("scurtă\n\n".utf8))
        #expect(edited.status == 0)
        let after = try #require(try workspace.run(["show", id, "--json"]).json() as? [String: Any])
        #expect(after["note"] as? String == "scurtă\n")
        let bookmark = try workspace.run(["bookmark", "mai-am-un-singur-dor.4", "--title", "-"],
                                         input: Data("Unde-am rămas".utf8))
        let bookmarked = try #require(try workspace.run(
            ["show", bookmark.stdout.trimmingCharacters(in: .newlines), "--json"]).json() as? [String: Any])
        #expect(bookmarked["note"] as? String == "Unde-am rămas")
    }

    @Test func badTextInputIsRefusedAndWritesNothing() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["init"])
        let before = try workspace.bytes(workspace.store)
        let notUTF8 = try workspace.run(["note", "mai-am-un-singur-dor.1", "-"], input: Data([0x61, 0xFF, 0x62]))
        #expect(notUTF8.status == 65)
        #expect(notUTF8.stderr == "Error: standard input is not UTF-8 text; nothing was written\n")
        let both = try workspace.run(["note", "mai-am-un-singur-dor.1", "x", "--note-file", "f"])
        #expect(both.status == 64 && both.stderr.hasPrefix("Error: give TEXT or --note-file, not both\n"))
        let neither = try workspace.run(["note", "mai-am-un-singur-dor.1"])
        #expect(neither.status == 64 && neither.stderr.hasPrefix("Error: missing TEXT (or --note-file FILE)\n"))
        let empty = try workspace.run(["note", "mai-am-un-singur-dor.1", "-"], input: Data("\n".utf8))
        #expect(empty.status == 64 && empty.stderr.hasPrefix("Error: the note is empty\n"))
        let missing = try workspace.run(["highlight", "mai-am-un-singur-dor.1", "--note-file", workspace.path("nu")])
        #expect(missing.status == 1 && missing.stderr == "Error: cannot read \(workspace.path("nu")) (--note-file): "
            + "no such file\n")
        let tooLong = try workspace.run(["note", "mai-am-un-singur-dor.1", "-"],
                                        input: Data(repeating: 0x61, count: (1 << 20) + 10))
        #expect(tooLong.status == 65 && tooLong.stderr.contains("more than 1048576 bytes"))
        #expect(try workspace.bytes(workspace.store) == before)
    }
}
