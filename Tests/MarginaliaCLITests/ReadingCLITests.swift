import Foundation
import Testing

/// Finding and reading text: `content documents`, `content passages`, `read`.
@Suite struct ReadingCLITests {
    @Test func documentsAndPassagesListIdsTitlesCountsAndText() throws {
        let workspace = try CLIWorkspace()
        #expect(try workspace.ok(["content", "documents"]) == """
            mai-am-un-singur-dor             Mai am un singur dor (4 passages)
            noi-amandoi-avem-acelasi-dascal  Noi amândoi avem același dascăl! (2 passages)
            """)
        let documents = try #require(try workspace.run(["content", "documents", "--json"]).json() as? [[String: Any]])
        #expect(documents.map { $0["id"] as? String } == ["mai-am-un-singur-dor", "noi-amandoi-avem-acelasi-dascal"])
        #expect(documents.map { $0["passages"] as? Int } == [4, 2])
        #expect(documents.first?["title"] as? String == "Mai am un singur dor")

        #expect(try workspace.ok(["content", "passages", "mai-am-un-singur-dor", "--from", "mai-am-un-singur-dor.2",
                                  "--limit", "2"]) == """
            mai-am-un-singur-dor.2  În liniş\u{00AD}tea serii
            mai-am-un-singur-dor.3  Să mă lăsaţi să mor
            """)
        let passages = try #require(
            try workspace.run(["content", "passages", "mai-am-un-singur-dor", "--json"]).json() as? [[String: Any]])
        #expect(passages.map { $0["id"] as? String } == (1...4).map { "mai-am-un-singur-dor.\($0)" })
        #expect(passages.map { $0["order"] as? Int } == [0, 1, 2, 3])
        #expect(passages[2]["text"] as? String == "Să mă lăsaţi să mor")

        let missing = try workspace.run(["content", "passages", "nu-exista"])
        #expect(missing.status == 65 && missing.stderr == "Error: no document nu-exista in the attached content\n")
        let elsewhere = try workspace.run(["content", "passages", "mai-am-un-singur-dor", "--from",
                                           "noi-amandoi-avem-acelasi-dascal.1"])
        #expect(elsewhere.status == 65)
        #expect(elsewhere.stderr == "Error: noi-amandoi-avem-acelasi-dascal.1 is in document "
            + "noi-amandoi-avem-acelasi-dascal, not mai-am-un-singur-dor\n")
    }

    @Test func theBundledSampleListsItsDocumentsAndPassages() throws {
        let workspace = try CLIWorkspace(sample: nil)
        // No --content and no store: the bundled sample, built on first use.
        let environment = ["MARGINALIA_CONTENT": ""]
        let documents = try workspace.run(["content", "documents", "--json"], environment: environment)
        #expect(documents.status == 0, "\(documents.stderr)")
        let listed = try #require(try documents.json() as? [[String: Any]])
        #expect(listed.count == 114)
        #expect(listed.contains { $0["id"] as? String == "luceafarul" && $0["passages"] as? Int == 397 })
        let passages = try workspace.run(["content", "passages", "luceafarul", "--limit", "2"],
                                         environment: environment)
        #expect(passages.stdout == "luceafarul.1  A fost odata ca-n povesti,\nluceafarul.2  A fost ca niciodata,\n")
        let read = try workspace.run(["read", "luceafarul.1", "--json"], environment: environment)
        #expect(read.status == 0, "\(read.stderr)")
        #expect(!FileManager.default.fileExists(atPath: workspace.store))
    }

    @Test func theHeadlineSearchFindsPassagesInTheBundledSample() throws {
        let workspace = try CLIWorkspace(sample: nil)
        let environment = ["MARGINALIA_CONTENT": ""]
        let search = try workspace.run(["search", "stiinta"], environment: environment)
        #expect(search.status == 0)
        // No passage holds "stiinta" as typed: its other forms are found (by the stem and lemma the content
        // build recorded), and the count is told.
        #expect(search.stdout.contains("scrisoarea-ii.39") && search.stdout.contains("scrisoarea-iii.266"))
        #expect(search.stdout.contains("[ştiinţ]"))
        // Its first use built the bundled content, and said so first.
        #expect(search.stderr.hasPrefix("Building the bundled sample content"))
        let count = search.stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(count.hasPrefix("1–") && count.contains(" passages"), "\(search.stderr)")
        let tara = try workspace.run(["search", "tara", "--limit", "2"], environment: environment)
        #expect(tara.status == 0 && tara.stdout.contains("[ţara]"))
        #expect(tara.stderr.hasPrefix("1–2 of ") && tara.stderr.contains("--offset 2 shows more"))
        let none = try workspace.run(["search", "xyzzyq"], environment: environment)
        #expect(none.status == 0 && none.stdout.isEmpty && none.stderr == "No passages match\n")
    }

    @Test func readMarksHighlightsAndShowsNotesUnderTheirPassage() throws {
        let workspace = try CLIWorkspace()
        let highlight = try workspace.ok(["highlight", "mai-am-un-singur-dor.1", "--quote", "singur", "--color",
                                          "yellow", "--tag", "dor"])
        let note = try workspace.ok(["note", "mai-am-un-singur-dor.1", "--quote", "Mai am",
                                     "o dorință\nîn două rânduri"])
        let span = try workspace.ok(["highlight", "mai-am-un-singur-dor.2", "--to", "mai-am-un-singur-dor.3:5"])
        let bookmark = try workspace.ok(["bookmark", "mai-am-un-singur-dor.4", "--title", "aici am rămas"])
        let deleted = try workspace.ok(["highlight", "mai-am-un-singur-dor.4", "--quote", "pat"])
        try workspace.ok(["delete", deleted])
        let all = try workspace.annotationIDs()
        let short = { (id: String) in expectedShortID(id, among: all) }
        let expected = """
            Mai am un singur dor (mai-am-un-singur-dor.1..mai-am-un-singur-dor.4)

            mai-am-un-singur-dor.1
              [Mai am] un [singur] dor:
              - note \(short(note)) “Mai am”
                note: o dorință
                  în două rânduri
              - highlight \(short(highlight)) “singur” (yellow, #dor)

            mai-am-un-singur-dor.2
              [În liniş\u{00AD}tea serii]
              - highlight \(short(span)) “În liniş\u{00AD}tea serii / Să mă”

            mai-am-un-singur-dor.3
              [Să mă] lăsaţi să mor

            mai-am-un-singur-dor.4
              Ci-mi împletiţi un pat
              - bookmark \(short(bookmark))
                title: aici am rămas

            """
        let plain = try workspace.run(["read", "mai-am-un-singur-dor.1..mai-am-un-singur-dor.4"])
        #expect(plain.status == 0 && plain.stderr.isEmpty)
        #expect(plain.stdout == expected)

        // A range that starts inside an annotation lists it under the first passage read.
        let middle = try workspace.ok(["read", "mai-am-un-singur-dor.3"])
        #expect(middle.contains("  [Să mă] lăsaţi să mor\n  - highlight \(short(span))"))

        let json = try #require(try workspace.run(["read", "mai-am-un-singur-dor.1..mai-am-un-singur-dor.2", "--json"])
            .json() as? [String: Any])
        #expect(json["document"] as? String == "mai-am-un-singur-dor")
        let passages = try #require(json["passages"] as? [[String: Any]])
        #expect(passages.map { $0["id"] as? String } == ["mai-am-un-singur-dor.1", "mai-am-un-singur-dor.2"])
        let marks = try #require(passages[0]["marks"] as? [[String: Int]])
        #expect(marks == [["start": 0, "end": 6], ["start": 10, "end": 16]])
        let annotations = try #require(passages[0]["annotations"] as? [[String: Any]])
        #expect(annotations.map { $0["id"] as? String } == [note, highlight])
        #expect(annotations.map { $0["status"] as? String } == ["intact", "intact"])
    }

    @Test func readRefusesRangesAcrossDocumentsBackwardsOrUnknown() throws {
        let workspace = try CLIWorkspace()
        let cases: [([String], Int32, String)] = [
            (["read", "mai-am-un-singur-dor.3..mai-am-un-singur-dor.1"], 64,
             "Error: mai-am-un-singur-dor.1 comes before mai-am-un-singur-dor.3; give the range in reading order\n"),
            (["read", "mai-am-un-singur-dor.1..noi-amandoi-avem-acelasi-dascal.1"], 64,
             "Error: mai-am-un-singur-dor.1 and noi-amandoi-avem-acelasi-dascal.1 are in different documents "
                + "(mai-am-un-singur-dor, noi-amandoi-avem-acelasi-dascal); read one document at a time\n"),
            (["read", "mai-am-un-singur-dor.9"], 65,
             "Error: no passage mai-am-un-singur-dor.9 in the attached content\n"),
            (["read", "mai-am-un-singur-dor.1.."], 64,
             "Error: 'mai-am-un-singur-dor.1..': a range is PASSAGE..PASSAGE\n"),
        ]
        for (arguments, status, message) in cases {
            let result = try workspace.run(arguments)
            #expect(result.status == status, "\(arguments)")
            #expect(result.stderr.hasPrefix(message), "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test(.enabled(if: CLIWorkspace.hasScript))
    func onATerminalReadAddsOnlyColorToTheSameBytes() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["highlight", "mai-am-un-singur-dor.1", "--quote", "singur"])
        let plain = try workspace.ok(["read", "mai-am-un-singur-dor.1"]) + "\n"
        let terminal = try workspace.runOnTerminal(["read", "mai-am-un-singur-dor.1"],
                                                   environment: ["TERM": "xterm", "NO_COLOR": ""])
        #expect(terminal.status == 0)
        #expect(terminal.stdout.contains("[\u{1B}[7msingur\u{1B}[0m]"))
        let uncolored = terminal.stdout.replacingOccurrences(of: "\u{1B}[7m", with: "")
            .replacingOccurrences(of: "\u{1B}[0m", with: "").replacingOccurrences(of: "\r\n", with: "\n")
        #expect(uncolored == plain)
        let noColor = try workspace.runOnTerminal(["read", "mai-am-un-singur-dor.1"],
                                                  environment: ["TERM": "xterm", "NO_COLOR": "1"])
        #expect(noColor.stdout.replacingOccurrences(of: "\r\n", with: "\n") == plain)
    }
}
