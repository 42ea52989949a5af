import Foundation
import Testing
@testable import Marginalia

@Suite struct InteropReadwiseTests {
    static let exportHeader = "Highlight,Book Title,Book Author,Amazon Book ID,Note,Color,Tags,Location Type,Location,"
        + "Highlighted at,Document tags"

    @Test func recordsAreReadAsRFC4180SaysWithTheirLines() throws {
        let text = "a,\"b, c\",\"d \"\"e\"\"\"\r\n\"two\r\nlines\",,\"\"\n\nlast,\"x\ny\",z\rafter-cr,1,2"
        let records = try CSVRecords.records(text)
        #expect(records.map(\.fields) == [["a", "b, c", "d \"e\""], ["two\r\nlines", "", ""],
                                          ["last", "x\ny", "z"], ["after-cr", "1", "2"]])
        // Lines count the line breaks inside quoted fields; the blank line is no record.
        #expect(records.map(\.line) == [1, 2, 5, 7])
        #expect(try CSVRecords.records("").isEmpty)
        #expect(try CSVRecords.records("\r\n\n").isEmpty)
        #expect(try CSVRecords.records(",\n").map(\.fields) == [["", ""]])
        // A quote inside an unquoted field is kept as it is.
        #expect(try CSVRecords.records("5\" disk,x").map(\.fields) == [["5\" disk", "x"]])
    }

    @Test func aQuoteNotClosedOrTextAfterItIsAnErrorNamingTheLine() {
        func error(_ text: String) -> (Int, String)? {
            do {
                _ = try CSVRecords.records(text)
                return nil
            } catch {
                return (error.line, error.reason)
            }
        }
        #expect(error("a,b\nc,\"open\nstill open\n")?.0 == 2)
        #expect(error("a,b\nc,\"open\nstill open\n")?.1 == "a quoted field that the file does not close")
        #expect(error("a,b\n\"x\"y,z\n")?.0 == 2)
        #expect(error("a,b\n\"x\"y,z\n")?.1.hasPrefix("text after the closing quote of a field") == true)
    }

    @Test func theExportWithItsByteOrderMarkCRLFQuotedCommasAndLineBreaks() throws {
        let bytes = try InteropFixtures.interop("readwise-export.csv")
        #expect(bytes.starts(with: [0xEF, 0xBB, 0xBF]))
        #expect(InteropReader.detect(bytes) == .readwise)
        let items = try ReadwiseCSV.read(bytes, file: "r.csv")
        #expect(items.map(\.title) == ["Poezii", "Poezii", "Poezii", "Dubliners"])
        #expect(items.map(\.author) == ["Mihai Eminescu", "Mihai Eminescu", "Mihai Eminescu", "James Joyce"])
        #expect(items.allSatisfy { $0.kind == .highlight && $0.format == .readwise })
        #expect(items[0].text == "Când cu gene ostenite sara suflu-n lumânare,")
        #expect(items[0].note == "seara, \"lumânarea\" și somnul")
        #expect(items[0].tags == ["poezie", "noapte"])
        #expect(items[0].color == "yellow")
        #expect(items[1].text
            == "Luna varsă peste toate voluptoasa ei văpaie,\nEa din noaptea amintirii o vecie-ntreagă scoate")
        #expect(items[1].note == nil && items[1].color == nil && items[1].tags.isEmpty)
        #expect(items.map(\.location) == [ItemLocation(start: 1), ItemLocation(start: 4), ItemLocation(page: "44"),
                                          ItemLocation(start: 12)])
        // Readwise's own date layout and ISO 8601.
        #expect(items[0].date == ClippingDate.milliseconds("2026-11-30T21:14:05Z"))
        #expect(items[2].date == ClippingDate.milliseconds("2026-12-01T08:00:00Z"))
        #expect(items.map(\.line) == [2, 3, 5, 6])
        // The same file with LF endings and no byte-order mark reads the same.
        let plain = String(decoding: bytes.dropFirst(3), as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        #expect(try ReadwiseCSV.read(Array(plain.utf8), file: "r.csv") == items)
    }

    @Test func columnsAreFoundByNameInAnyOrderAndOptionalOnesMayBeMissing() throws {
        let csv = "Note,book title,Highlight\r\nmotto,Poezii,Somnoroase păsărele\r\n,Poezii,Noapte bună!\r\n"
            + "o notă fără text,Poezii,\r\n,,\r\n"
        #expect(InteropReader.detect(Array(csv.utf8)) == .readwise)
        let items = try ReadwiseCSV.read(Array(csv.utf8), file: "r.csv")
        #expect(items.map(\.kind) == [.highlight, .highlight, .note])
        #expect(items.map(\.text) == ["Somnoroase păsărele", "Noapte bună!", ""])
        #expect(items.map(\.note) == ["motto", nil, "o notă fără text"])
        #expect(items.allSatisfy { $0.author == nil && $0.date == nil && $0.location == ItemLocation() })
    }

    @Test func theStoresOwnCSVExportLayoutIsReadToo() throws {
        let csv = ReadwiseCSVWriter.columns.joined(separator: ",") + "\r\n"
            + "\"Lună tu, stăpân-a mării, pe a lumii boltă luneci\",Scrisoarea I,,,o notă,7,"
            + "2026-11-30 21:14:05.250\r\n"
        #expect(InteropReader.detect(Array(csv.utf8)) == .readwise)
        let items = try ReadwiseCSV.read(Array(csv.utf8), file: "r.csv")
        #expect(items.count == 1)
        #expect(items[0].title == "Scrisoarea I" && items[0].author == nil && items[0].note == "o notă")
        #expect(items[0].location == ItemLocation(start: 7))
        #expect(items[0].date == ClippingDate.milliseconds("2026-11-30T21:14:05.250Z"))
    }

    @Test func badRowsAreNamedByFileAndLine() {
        func refusal(_ text: String) -> String? { InteropFixtures.refusal(ReadwiseCSV.read, text, file: "r.csv") }
        #expect(refusal("Book Title,Note\nPoezii,x\n")
            == "r.csv: line 1: the header has no \"Highlight\" column (it has \"Book Title\", \"Note\")")
        #expect(refusal("Highlight,Author\nx,y\n")
            == "r.csv: line 1: the header has no \"Book Title\" column (it has \"Highlight\", \"Author\")")
        // The row after a field of two lines starts on line 4.
        #expect(refusal("\(Self.exportHeader)\n\"a\nb\",Poezii,,,,,,,,,\nc,Poezii,,,\n")
            == "r.csv: line 4: 5 fields where the header has 11")
        #expect(refusal("Highlight,Title\nx,Poezii\n\"never closed,Poezii\n")
            == "r.csv: line 3: a quoted field that the file does not close")
        #expect(refusal("Highlight,Title\nx,\n") == "r.csv: line 2: a row without a book title")
        #expect(refusal("Highlight,Title,Note\nx,P,\n,P,\n")
            == "r.csv: line 3: a row with neither a highlight nor a note")
        #expect(refusal("Highlight,Title,Date\nx,P,yesterday\n")
            == "r.csv: line 2: \"yesterday\" is not a date (Readwise writes 2021-03-14 18:22:05+00:00)")
        #expect(refusal("") == "r.csv: an empty file has no Readwise header")
        #expect(thrownError(InteropError.self) { _ = try ReadwiseCSV.read([0x48, 0xFF], file: "r.csv") }?.reason
            == "byte 1 is not UTF-8; the file must be UTF-8 text")
    }

    /// A store with the sample content's second edition attached.
    func store(in directory: TemporaryDirectory, name: String = "user.db") throws -> AnnotationStore {
        let store = try makeStore(directory, name: name)
        try store.attachContent(path: try SampleContent.shared.path(edition: 2))
        return store
    }

    @Test func highlightsLandOnTheirPassagesAndAgainAddNothing() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        let bytes = try InteropFixtures.interop("readwise-export.csv")
        let report = try store.importFile(bytes, name: "r.csv")
        #expect((report.format, report.itemsRead, report.created, report.anchored) == (.readwise, 4, 3, 3))
        #expect(report.unmatchedBooks.map(\.title) == ["Dubliners"])
        #expect(report.notesOnHighlights == 1)
        let annotations = try store.annotations()
        #expect(annotations.map { "\($0.anchor.start)-\($0.anchor.end)" } == [
            "scrisoarea-i.1:0-scrisoarea-i.1:44", "scrisoarea-i.4:0-scrisoarea-i.5:47",
            "somnoroase-pasarele.9:0-somnoroase-pasarele.9:19",
        ])
        let first = annotations[0]
        #expect(first.note == "seara, \"lumânarea\" și somnul")
        #expect(first.tags.sorted() == ["noapte", "poezie"])
        #expect(first.color == "yellow")
        #expect(annotations[2].color == "blue")
        #expect(try store.checkAnchors(annotations).allSatisfy { $0.status == .intact })
        let before = try canonicalDump(directory.path("user.db"))
        let again = try store.importFile(bytes, name: "r.csv")
        #expect(again.created == 0 && again.updated == 0 && again.duplicates == 3)
        #expect(try canonicalDump(directory.path("user.db")) == before)
    }

    @Test func theStoresOwnCSVExportImportsBack() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        _ = try store.importFile(try InteropFixtures.interop("readwise-export.csv"), name: "r.csv")
        _ = try store.importFile(try InteropFixtures.interop("koreader-poezii.json"), name: "k.json")
        let (annotations, context) = try store.exportItems()
        let csv = Array(ReadwiseCSVWriter.render(annotations, context: context).text.utf8)
        #expect(InteropReader.detect(csv) == .readwise)
        let other = try self.store(in: directory, name: "other.db")
        let report = try other.importFile(csv, name: "export.csv")
        #expect(report.created == annotations.count && report.orphaned == 0)
        func essence(_ annotations: [Annotation]) -> [String] {
            annotations.map { "\($0.kind) \($0.anchor.start)-\($0.anchor.end) \($0.anchor.quote) \($0.note ?? "-")" }
                .sorted()
        }
        #expect(essence(try other.annotations()) == essence(annotations))
        // Minutes and seconds survive; the CSV keeps no time zone, and is read as UTC as it was written.
        #expect(try other.annotations().map(\.createdAt.milliseconds).sorted()
            == annotations.map(\.createdAt.milliseconds).sorted())
        #expect(try other.importFile(csv, name: "export.csv").created == 0)
    }
}
