import Foundation
import Testing
@testable import Marginalia

/// W3C annotations another tool wrote: a `TextQuoteSelector` and no anchor of Marginalia's.
@Suite struct InteropForeignW3CTests {
    func store(in directory: TemporaryDirectory) throws -> AnnotationStore {
        let store = try makeStore(directory)
        try store.attachContent(path: try SampleContent.shared.path(edition: 2))
        return store
    }

    @Test func theReaderKeepsTheSelectorsPrefixSuffixAndTheAnnotationsIRI() throws {
        let items = try WebAnnotationReader.read(try InteropFixtures.interop("foreign-w3c.json"), file: "w.json")
        #expect(items.count == 6)
        #expect(items.allSatisfy { $0.native == nil && $0.kind == .highlight })
        #expect(items[0].note == "dorința poetului")
        #expect(items[0].prefix == nil && items[0].suffix == "\nSă mă lăsați să mor")
        #expect(items[1].prefix?.hasPrefix("Și ridică mii de umbre") == true)
        #expect(items.map(\.sourceID) == ["k3Xf", "r154", "r010", "rAny", "ced1", "dub1"]
            .map { "https://annotations.example.org/a/\($0)" })
        #expect(items[5].title == "urn:isbn:9780140186475")
    }

    @Test func foreignAnnotationsAnchorByTheirTextAndContextThroughTheSamePath() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        let bytes = try InteropFixtures.interop("foreign-w3c.json")
        #expect(InteropReader.detect(bytes) == .w3c)
        let report = try store.importFile(bytes, name: "w.json")
        #expect((report.itemsRead, report.created, report.anchored, report.orphaned) == (6, 5, 4, 1))
        #expect(report.notesOnHighlights == 1)
        // The other source has none of its texts in the content: a book the content lacks, named and left out.
        #expect(report.unmatchedBooks == [UnmatchedBook(title: "urn:isbn:9780140186475", author: nil, items: 1)])
        let annotations = try store.annotations()
        let anchored = annotations.filter { !$0.anchor.start.passage.hasPrefix("w3c:") }
        #expect(anchored.map { "\($0.anchor.start)-\($0.anchor.end)" } == [
            "la-steaua.12:0-la-steaua.12:21", "mai-am-un-singur-dor.1:0-mai-am-un-singur-dor.2:17",
            "scrisoarea-i.10:0-scrisoarea-i.10:52", "scrisoarea-i.154:0-scrisoarea-i.154:52",
        ])
        // The content's own text: comma-below letters where the annotation had cedillas.
        #expect(anchored[0].anchor.quote == "Azi o vedem, și nu e.")
        #expect(anchored[1].note == "dorința poetului")
        #expect(try store.checkAnchors(anchored).allSatisfy { $0.status == .intact })
        // The line the poem repeats, without a prefix or suffix to tell which: kept as an orphan with its text.
        let orphan = try #require(annotations.first { $0.anchor.start.passage.hasPrefix("w3c:") })
        #expect(orphan.anchor.quote == "Și câți codri-ascund în umbră strălucire de izvoară!")
        #expect(try store.checkAnchors([orphan]).first?.status == .orphaned)
        #expect(anchored.first?.createdAt.milliseconds == ClippingDate.milliseconds("2026-11-29T11:00:00Z"))

        let before = try canonicalDump(directory.path("user.db"))
        let again = try store.importFile(bytes, name: "w.json")
        #expect(again.created == 0 && again.duplicates == 5)
        #expect(try canonicalDump(directory.path("user.db")) == before)
    }

    @Test func thePrefixAloneTellsWhichRepeatedLineItIs() throws {
        let items = try WebAnnotationReader.read(try InteropFixtures.interop("foreign-w3c.json"), file: "w.json")
        for (index, passage) in [(1, "scrisoarea-i.154"), (2, "scrisoarea-i.10")] {
            let directory = try TemporaryDirectory()
            let store = try store(in: directory)
            #expect(try store.importItems([items[index]], format: .w3c).anchored == 1)
            #expect(try store.annotations().map(\.anchor.start.passage) == [passage])
        }
        // A prefix that both places have does not tell them apart.
        var both = items[1]
        both.prefix = "fecioară,\n"
        both.suffix = nil
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        #expect(try store.importItems([both], format: .w3c).orphaned == 1)
    }
}
