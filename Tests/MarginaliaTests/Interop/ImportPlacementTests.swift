import Foundation
import Testing
@testable import Marginalia

/// A book found by its text when its title is not the content's, and repeated phrases placed by where the source's
/// locations say they are.
@Suite struct ImportPlacementTests {
    /// Nine passages of a chronicle; "ani și a născut fii" ends passages 2, 5 and 8.
    static let source = makeSource([("cronica", (1...9).map { index in
        let words = ["Adam", "Set", "Enos", "Cainan", "Mahalaleel", "Iared", "Enoh", "Metusala", "Lameh"][index - 1]
        let tail = [2, 5, 8].contains(index) ? " După aceea a trăit încă ani și a născut fii" : ""
        return ("cronica.\(index)", "\(words) a trăit o sută de ani cu casa lui numărul \(index) întreagă.\(tail)")
    }), ("altul", [("altul.1", "Un alt document, cu totul alt text decât cronica.")])])

    func item(_ text: String, at location: Int, title: String = "Cronica veche") -> ImportItem {
        ImportItem(format: .kindle, kind: .highlight, title: title, text: text,
                   location: ItemLocation(start: location, end: location + 1), line: location)
    }

    @Test func aBookWhoseTitleDiffersIsFoundByItsTextAndTheOptionNamesOne() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: Self.source)
        let items = [item("Adam a trăit o sută de ani", at: 10), item("Enos a trăit o sută de ani", at: 30),
                     item("Iared a trăit o sută de ani", at: 60)]
        let report = try store.importItems(items, format: .kindle, options: InteropImportOptions())
        #expect(report.created == 3 && report.anchored == 3 && report.unmatchedBooks.isEmpty)
        #expect(report.matchedBooks == [MatchedBook(title: "Cronica veche", document: "cronica", textsFound: 3,
                                                    textsTried: 3)])
        // Found in no document: left out, with none named closest.
        let stranger = try store.importItems([item("nimic din toate acestea nu e aici", at: 5, title: "Altceva")],
                                             format: .kindle, options: InteropImportOptions())
        #expect(stranger.created == 0 && stranger.unmatchedBooks.map(\.title) == ["Altceva"])
        #expect(stranger.unmatchedBooks.first?.closestDocument == nil)
        // Named by the option: its texts are looked for there.
        let named = try store.importItems([item("cu totul alt text", at: 5, title: "Altceva")], format: .kindle,
                                          options: InteropImportOptions(document: "altul"))
        #expect(named.created == 1 && named.anchored == 1)
        #expect(named.matchedBooks.map(\.document) == ["altul"])
        #expect(throws: MarginaliaError.self) {
            try store.importItems(items, format: .kindle, options: InteropImportOptions(document: "nu-exista"))
        }
    }

    /// Two books read interleaved are planned one after the other in the import's scratch database: each book's
    /// repeated phrase is placed by its own book's locations alone, as when each is imported by itself.
    @Test func interleavedBooksArePlacedEachByItsOwnLocations() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: Self.source)
        let phrase = "a trăit încă ani și a născut fii"
        // Book one maps location 52 near passage 5; book two maps 820 near passage 8. Book two's start at location
        // 60, taken for book one's, would put book one's phrase near passage 1, and so at passage 2.
        let one = [item("Adam a trăit o sută de ani", at: 10, title: "Cronica veche"),
                   item("Lameh a trăit o sută de ani", at: 90, title: "Cronica veche"),
                   item(phrase, at: 52, title: "Cronica veche")]
        let two = [item("Adam a trăit o sută de ani", at: 60, title: "Cronica nouă"),
                   item("Lameh a trăit o sută de ani", at: 900, title: "Cronica nouă"),
                   item(phrase, at: 820, title: "Cronica nouă")]
        let report = try store.importItems([two[0], one[0], two[1], one[1], one[2], two[2]], format: .kindle,
                                           options: InteropImportOptions())
        #expect(report.created == 6 && report.anchored == 6, "\(report)")
        #expect(report.matchedBooks.map(\.title) == ["Cronica nouă", "Cronica veche"])
        let placed = try store.annotations().filter { $0.anchor.quote == phrase }.map(\.anchor.start.passage)
        #expect(placed.sorted() == ["cronica.5", "cronica.8"])

        let other = try TemporaryDirectory()
        let apart = try makeStore(other, source: Self.source)
        for book in [one, two] { _ = try apart.importItems(book, format: .kindle, options: InteropImportOptions()) }
        let byID = { (store: AnnotationStore) in
            try store.annotations().sorted { $0.id < $1.id }.map { "\($0.id) \($0.anchor.start.passage)" }
        }
        #expect(try byID(store) == byID(apart))
    }

    @Test func aRepeatedPhraseTakesThePlaceItsLocationPredicts() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: Self.source)
        // Placed once each: passage 1 at location 10, passage 9 at location 90. The phrase at location 52 falls in
        // the middle, by passage 5; with a page and no location nothing tells its place: an orphan.
        var unlocated = item("încă ani și a născut fii", at: 34)
        unlocated.location = ItemLocation(page: "3")
        let items = [item("Adam a trăit o sută de ani", at: 10), item("Lameh a trăit o sută de ani", at: 90),
                     item("a trăit încă ani și a născut fii", at: 52), unlocated]
        let report = try store.importItems(items, format: .kindle, options: InteropImportOptions())
        #expect(report.created == 4 && report.anchored == 3 && report.orphaned == 1, "\(report)")
        let placed = try store.annotations().filter { $0.anchor.quote == "a trăit încă ani și a născut fii" }
        #expect(placed.map(\.anchor.start.passage) == ["cronica.5"])
        #expect(report.orphans.count == 1 && report.orphans[0].reason.hasPrefix("found at 3 places"))
        #expect(report.orphans[0].location == "page 3")
    }

    @Test func theLocationMapIsPiecewiseLinearAndExtendsAtTheAverageRate() {
        let known: [(location: Double, offset: Double)] = [(10, 100), (20, 300), (40, 400)]
        #expect(InteropImporter<StoreReader>.predictedOffset(of: 15, from: known) == 200)
        #expect(InteropImporter<StoreReader>.predictedOffset(of: 30, from: known) == 350)
        #expect(InteropImporter<StoreReader>.predictedOffset(of: 50, from: known) == 500.0)
        #expect(InteropImporter<StoreReader>.predictedOffset(of: 0, from: known) == 0.0)
        #expect(InteropImporter<StoreReader>.predictedOffset(of: 5, from: []) == nil)
    }

    @Test func textLongerThanAnAnnotationHoldsIsRefusedWithItsLineNotCut() throws {
        let long = String(repeating: "a", count: FieldLimits.maxTextBytes + 1)
        let clipping = "Cronica\r\n- Your Highlight on Location 10-11 | Added on Monday, 1 January 2024 10:00:00\r\n\r\n"
            + long + "\r\n==========\r\n"
        #expect {
            try InteropReader.read(Array(clipping.utf8), format: .kindle, file: "c.txt")
        } throws: { error in
            "\(error)".contains("c.txt") && "\(error)".contains("line 1") && "\(error)".contains("nothing is cut")
        }
    }
}
