import Foundation
import Testing

/// `import` of KOReader's JSON and Readwise's CSV, through the built binary.
@Suite struct InteropReadersCLITests {
    static func fixture(_ name: String) -> String {
        InteropFiles.directory.appendingPathComponent("interop/\(name)").path
    }

    static let koreader = fixture("koreader-poezii.json")
    static let koreaderDocuments = fixture("koreader-documents.json")
    static let readwise = fixture("readwise-export.csv")

    @Test func aKOReaderExportImportsOnceOntoItsPassagesWithItsNote() throws {
        let workspace = try CLIWorkspace(sample: "eminescu-2026.2.json")
        let dry = try workspace.run(["import", Self.koreader, "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.hasPrefix("Would import 4 koreader items from \(Self.koreader)"))
        #expect(!FileManager.default.fileExists(atPath: workspace.store))

        let first = try workspace.ok(["import", Self.koreader])
        #expect(first.contains("annotations created: 4 (4 anchored to the content, 0 orphaned)"))
        #expect(first.contains("notes on highlights: 1"))
        let listed = try #require(try workspace.run(["list", "--json"]).json() as? [[String: Any]])
        #expect(listed.count == 4)
        let noted = try #require(listed.first { $0["note"] as? String == "lumina care vine de departe" })
        #expect(noted["quote"] as? String == "La steaua care-a răsărit\nE-o cale-atât de lungă,")
        #expect(noted["color"] as? String == "yellow")
        let store = try workspace.bytes(workspace.store)
        let again = try workspace.ok(["import", Self.koreader, "--format", "koreader"])
        #expect(again.contains("already here:        4"))
        #expect(again.contains("annotations created: 0"))
        #expect(try workspace.bytes(workspace.store) == store)

        let documents = try #require(try workspace.run(["import", Self.koreaderDocuments, "--json"]).json()
            as? [String: Any])
        #expect(documents["format"] as? String == "koreader")
        #expect(documents["created"] as? Int == 2)
        #expect((documents["unmatchedBooks"] as? [[String: Any]])?.first?["title"] as? String == "Dubliners")
        try workspace.ok(["verify"])
    }

    @Test func aReadwiseExportImportsOnceWithItsNotesTagsAndColors() throws {
        let workspace = try CLIWorkspace(sample: "eminescu-2026.2.json")
        try workspace.ok(["init"])
        let empty = try workspace.bytes(workspace.store)
        let dry = try workspace.ok(["import", Self.readwise, "--dry-run"])
        #expect(dry.hasPrefix("Would import 4 readwise items from \(Self.readwise)"))
        #expect(try workspace.bytes(workspace.store) == empty)

        let first = try workspace.ok(["import", Self.readwise])
        #expect(first.contains("annotations created: 3 (3 anchored to the content, 0 orphaned)"))
        #expect(first.contains("    Dubliners (James Joyce): 1"))
        let listed = try #require(try workspace.run(["list", "--json"]).json() as? [[String: Any]])
        #expect(listed.map { $0["quote"] as? String } == [
            "Când cu gene ostenite sara suflu-n lumânare,",
            "Luna varsă peste toate voluptoasa ei văpaie,\nEa din noaptea amintirii o vecie-ntreagă scoate",
            "Trece lebăda pe ape",
        ])
        #expect(listed[0]["note"] as? String == "seara, \"lumânarea\" și somnul")
        #expect((listed[0]["tags"] as? [String])?.sorted() == ["noapte", "poezie"])
        let again = try #require(try workspace.run(["import", Self.readwise, "--json"]).json() as? [String: Any])
        #expect(again["created"] as? Int == 0)
        #expect(again["duplicates"] as? Int == 3)
    }

    @Test func malformedFilesExit65NamingTheEntryOrLineAndChangeNothing() throws {
        let workspace = try CLIWorkspace(sample: "eminescu-2026.2.json")
        try workspace.ok(["import", Self.readwise])
        let before = try workspace.bytes(workspace.store)

        let json = workspace.path("bad.json")
        try Data("""
            {"title": "Poezii", "entries": [{"page": 1, "time": 1796073245, "text": "Somnoroase păsărele"},
              {"page": 2, "time": "ieri", "text": "Noapte bună!"}]}
            """.utf8).write(to: URL(fileURLWithPath: json))
        let badJSON = try workspace.run(["import", json])
        #expect(badJSON.status == 65)
        #expect(badJSON.stderr.contains("bad.json: entry 2: field \"time\": \"ieri\" is not a time"),
                "\(badJSON.stderr)")

        let csv = workspace.path("bad.csv")
        try Data("Highlight,Book Title,Note\r\nSomnoroase păsărele,Poezii,\r\n\"Noapte bună!,Poezii,x\r\n".utf8)
            .write(to: URL(fileURLWithPath: csv))
        let badCSV = try workspace.run(["import", csv])
        #expect(badCSV.status == 65)
        #expect(badCSV.stderr.contains("bad.csv: line 3: a quoted field that the file does not close"),
                "\(badCSV.stderr)")
        try Data("Highlight,Book Title,Note\nSomnoroase păsărele,Poezii\n".utf8).write(to: URL(fileURLWithPath: csv))
        let short = try workspace.run(["import", csv, "--format", "readwise"])
        #expect(short.status == 65)
        #expect(short.stderr.contains("bad.csv: line 2: 2 fields where the header has 3"), "\(short.stderr)")
        #expect(try workspace.bytes(workspace.store) == before)
    }

    @Test func theSamplesREADMEImportsAreTheFixtures() throws {
        for name in ["koreader-poezii.json", "readwise-export.csv"] {
            let sample = CLIWorkspace.samples.appendingPathComponent(name)
            #expect(try Data(contentsOf: sample) == Data(contentsOf: URL(fileURLWithPath: Self.fixture(name))), "\(name)")
        }
    }

    @Test func theReportCountsInWords() throws {
        let workspace = try CLIWorkspace(sample: "eminescu-2026.2.json")
        let one = workspace.path("one.json")
        try Data(#"{"title": "Dubliners", "entries": [{"page": 1, "text": "It was the third stroke."}]}"#.utf8)
            .write(to: URL(fileURLWithPath: one))
        let report = try workspace.ok(["import", one, "--dry-run"])
        #expect(report.hasPrefix("Would import 1 koreader item from \(one)\n"))
        #expect(report.contains("books not in the content: 1 (1 item, not imported;"))
        #expect(!report.contains("1 items"))
        try workspace.ok(["import", Self.koreader])
        let export = try workspace.run(["export", "-", "--format", "readwise", "--document", "luceafarul"])
        #expect(export.stderr == "Exported 1 annotation as readwise\n")
    }

    @Test func theCSVExportImportsBackIntoAnotherStore() throws {
        let workspace = try CLIWorkspace(sample: "eminescu-2026.2.json")
        try workspace.ok(["import", Self.koreader])
        try workspace.ok(["import", Self.readwise])
        let csv = workspace.path("notes.csv")
        try workspace.ok(["export", csv, "--format", "readwise"])
        let other = ["--store", try workspace.newStore("other.db")]
        let report = try #require(try workspace.run(other + ["import", csv, "--json"]).json() as? [String: Any])
        #expect(report["format"] as? String == "readwise")
        #expect(report["created"] as? Int == 7)
        #expect(report["orphaned"] as? Int == 0)
        func quotes(_ prefix: [String]) throws -> [String] {
            let listed = try #require(try workspace.run(prefix + ["list", "--json"]).json() as? [[String: Any]])
            return listed.map { "\($0["quote"] as? String ?? "") | \($0["note"] as? String ?? "")" }
        }
        #expect(try quotes(other) == quotes([]))
        #expect(try quotes(other).count == 7)
    }
}
