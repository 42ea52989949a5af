import Foundation
import Testing
@testable import Marginalia

extension InteropFixtures {
    /// A file of Tests/Fixtures/interop.
    static func interop(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent("interop/\(name)")))
    }

    /// The error message a reader throws for `bytes`, or nil when it reads them.
    static func refusal(_ read: ([UInt8], String) throws -> [ImportItem], _ text: String, file: String) -> String? {
        thrownError(InteropError.self) { _ = try read(Array(text.utf8), file) }?.description
    }
}

@Suite struct InteropKOReaderTests {
    @Test func oneBookWithItsEntriesPagesTimesNotesAndColors() throws {
        let items = try KOReaderExport.read(try InteropFixtures.interop("koreader-poezii.json"), file: "k.json")
        #expect(items.count == 4)
        #expect(items.allSatisfy { $0.format == .koreader && $0.kind == .highlight })
        #expect(items.allSatisfy { $0.title == "Poezii" && $0.author == "Mihai Eminescu" })
        #expect(items.map(\.text) == ["La steaua care-a răsărit E-o cale-atât de lungă,", "Sufletul vieții mele.",
                                      "Somnoroase păsărele", "A fost odată ca-n povești,"])
        // A number or a string; both are the page.
        #expect(items.map(\.location) == ["88", "41", "120", "150"].map { ItemLocation(page: $0) })
        // An empty note is none.
        #expect(items.map(\.note) == ["lumina care vine de departe", nil, nil, nil])
        #expect(items.map(\.color) == ["yellow", nil, "red", "gray"])
        // Seconds since 1970: 2026-11-30 21:14:05 UTC.
        #expect(items[0].date == ClippingDate.milliseconds("2026-11-30T21:14:05Z"))
        #expect(items.map(\.line) == [1, 2, 3, 4])
        #expect(InteropReader.detect(try InteropFixtures.interop("koreader-poezii.json")) == .koreader)
    }

    @Test func severalDocumentsEachWithItsTitle() throws {
        let bytes = try InteropFixtures.interop("koreader-documents.json")
        #expect(InteropReader.detect(bytes) == .koreader)
        let items = try KOReaderExport.read(bytes, file: "k.json")
        #expect(items.map(\.title) == ["Luceafărul", "Scrisoarea I", "Dubliners"])
        #expect(items.map(\.author) == ["Mihai Eminescu", "Mihai Eminescu", "James Joyce"])
        #expect(items[0].note == "comparația cu \"luna\"")
        #expect(items.map(\.line) == [1, 2, 3])
        // With a byte-order mark, and a document without entries.
        let marked = [0xEF, 0xBB, 0xBF] + Array(#"{"documents": [{"title": "T", "entries": []}]}"#.utf8)
        #expect(InteropReader.detect(marked) == .koreader)
        #expect(try KOReaderExport.read(marked, file: "k.json").isEmpty)
    }

    @Test func notesAndBookmarksBySortOrByAnEntryWithoutText() throws {
        let json = """
            {"title": "Poezii", "entries": [
              {"page": 3, "time": 1796073245, "text": "", "note": "de recitit"},
              {"page": 4, "time": 1796073246.5},
              {"page": "5-6", "sort": "note", "text": "o notă din Kindle"},
              {"page": 7, "sort": "bookmark", "text": "Page 7 aici"},
              {"page": null, "time": null, "text": "Somnoroase păsărele", "color": null}
            ]}
            """
        let items = try KOReaderExport.read(Array(json.utf8), file: "k.json")
        #expect(items.map(\.kind) == [.note, .bookmark, .note, .bookmark, .highlight])
        #expect(items.map(\.note) == ["de recitit", nil, "o notă din Kindle", "Page 7 aici", nil])
        #expect(items.map(\.text) == ["", "", "", "", "Somnoroase păsărele"])
        #expect(items[1].date == 1_796_073_246_500)
        #expect(items[4].date == nil && items[4].location == ItemLocation() && items[4].author == nil)
    }

    @Test func badInputIsNamedByFileDocumentEntryAndField() {
        func refusal(_ text: String) -> String? {
            InteropFixtures.refusal(KOReaderExport.read, text, file: "k.json")
        }
        #expect(refusal("{\"title\": \"Poezii\", \"entries\": [")?.hasPrefix("k.json: not JSON: ") == true)
        #expect(refusal("[]") == "k.json: expected KOReader's export, an object with \"entries\" or \"documents\"")
        #expect(refusal("{\"title\": \"Poezii\"}")
            == "k.json: expected KOReader's export, an object with \"entries\" or \"documents\"")
        #expect(refusal("{\"documents\": {}}") == "k.json: \"documents\" is not a list")
        #expect(refusal("{\"documents\": [{\"title\": \"A\", \"entries\": []}, 3]}")
            == "k.json: document 2 is not an object")
        #expect(refusal("{\"entries\": []}") == "k.json: the book: field \"title\": a book has a title")
        #expect(refusal("{\"title\": \"A\", \"entries\": {}}")
            == "k.json: the book: field \"entries\": a book has its entries as a list")
        #expect(refusal("{\"title\": \"A\", \"entries\": [{\"text\": \"x\"}, 7]}")
            == "k.json: entry 2: an entry is an object")
        #expect(refusal("{\"title\": \"A\", \"entries\": [{\"text\": \"x\", \"time\": true}]}")
            == "k.json: entry 1: field \"time\": a time is seconds since 1970")
        #expect(refusal("{\"title\": \"A\", \"entries\": [{\"text\": \"x\", \"time\": -5}]}")
            == "k.json: entry 1: field \"time\": -5 is not a time in seconds since 1970")
        #expect(refusal("{\"title\": \"A\", \"entries\": [{\"text\": \"x\", \"page\": [1]}]}")
            == "k.json: entry 1: field \"page\": a page is a number or a string")
        #expect(refusal("{\"title\": \"A\", \"entries\": [{\"text\": 12}]}")
            == "k.json: entry 1: field \"text\": expected a string")
        #expect(refusal("{\"title\": \"A\", \"entries\": [{\"text\": \"x\", \"sort\": \"underline\"}]}")
            == "k.json: entry 1: field \"sort\": \"underline\" is not highlight, note or bookmark")
        #expect(refusal("""
            {"documents": [{"title": "A", "entries": []}, {"title": "Scrisoarea I", "entries": [{"text": "x"},
              {"text": "y", "drawer": 4}]}]}
            """) == "k.json: document 2 (\"Scrisoarea I\"), entry 2: field \"drawer\": expected a string")
        #expect(refusal("{\"title\": \"A\", \"entries\": [{\"sort\": \"note\"}]}")
            == "k.json: entry 1: field \"text\": a note without text")
    }

    /// A store with the sample content's second edition attached.
    func store(in directory: TemporaryDirectory) throws -> AnnotationStore {
        let store = try makeStore(directory)
        try store.attachContent(path: try SampleContent.shared.path(edition: 2))
        return store
    }

    @Test func highlightsLandOnTheirPassagesWithNotesAndAgainAddNothing() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        let bytes = try InteropFixtures.interop("koreader-poezii.json")
        let dry = try store.importFile(bytes, name: "k.json", options: InteropImportOptions(dryRun: true))
        #expect(dry.created == 4)
        #expect(try store.annotations().isEmpty)
        let report = try store.importFile(bytes, name: "k.json")
        #expect(report.format == .koreader)
        #expect((report.itemsRead, report.created, report.anchored, report.orphaned) == (4, 4, 4, 0))
        #expect(report.notesOnHighlights == 1)
        let annotations = try store.annotations()
        #expect(annotations.map { "\($0.anchor.start)-\($0.anchor.end)" } == [
            "floare-albastra.4:0-floare-albastra.4:21", "la-steaua.1:0-la-steaua.2:23",
            "luceafarul.1:0-luceafarul.1:26", "somnoroase-pasarele.1:0-somnoroase-pasarele.1:19",
        ])
        let across = try #require(annotations.first { $0.anchor.start.passage == "la-steaua.1" })
        // The content's own text, its passages joined by a line feed.
        #expect(across.anchor.quote == "La steaua care-a răsărit\nE-o cale-atât de lungă,")
        #expect(across.note == "lumina care vine de departe")
        #expect(across.color == "yellow")
        #expect(across.createdAt.milliseconds == ClippingDate.milliseconds("2026-11-30T21:14:05Z"))
        // The note is an edit of the highlight, as a Kindle note on a highlight is.
        let history = try store.history(id: across.id)
        #expect(history.map(\.operation) == [.create, .edit])
        #expect(history.map(\.device) == ["import-koreader", "import-koreader"])
        #expect(try store.checkAnchors(annotations).allSatisfy { $0.status == .intact })

        let before = try canonicalDump(directory.path("user.db"))
        let again = try store.importFile(bytes, name: "k.json")
        #expect(again.created == 0 && again.updated == 0 && again.duplicates == 4)
        #expect(again.merge.newChanges == 0)
        #expect(try canonicalDump(directory.path("user.db")) == before)
    }

    @Test func documentsAreTheBooksAndOneTheContentLacksIsNamed() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        let report = try store.importFile(try InteropFixtures.interop("koreader-documents.json"), name: "k.json")
        #expect((report.created, report.anchored, report.notesOnHighlights) == (2, 2, 1))
        #expect(report.unmatchedBooks == [UnmatchedBook(title: "Dubliners", author: "James Joyce", items: 1)])
        let annotations = try store.annotations()
        #expect(annotations.map(\.anchor.quote) == ["Cum e Fecioara intre sfinti\nSi luna intre stele.",
                                                    "Când plutești pe mișcătoarea mărilor singurătate!"])
        #expect(annotations.map(\.anchor.document) == ["luceafarul", "scrisoarea-i"])
        #expect(annotations[0].note == "comparația cu \"luna\"")
    }
}
