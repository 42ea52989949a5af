import Foundation
import Testing
@testable import Marginalia

/// The items of an import sorted by book as they are read, each held once: the order the planning sees, the ids it
/// derives, and an item's native annotation held by reference but compared by value.
@Suite struct ImportBooksTests {
    func item(_ text: String, title: String, author: String? = "Anon", line: Int) -> ImportItem {
        ImportItem(format: .kindle, kind: .highlight, title: title, author: author, text: text,
                   location: ItemLocation(start: line, end: line + 1), line: line)
    }

    func native(_ id: String, quote: String) -> NativeAnnotation {
        let position = TextPosition(passage: "p.1", offset: 0)
        return NativeAnnotation(id: id, anchor: Anchor(document: "d", start: position, end: position, quote: quote,
                                                       prefix: "", suffix: "", edition: "e"),
                                created: 1, modified: 2)
    }

    @Test func interleavedBooksAreSortedInFirstSeenOrderAndNativesApart() {
        var own = ImportItem(format: .w3c, kind: .highlight, title: "B", text: "own", line: 3)
        own.native = native("0b0e5a34-0000-4000-8000-000000000001", quote: "own")
        var books = ImportBooks([item("b1", title: "B", line: 1), item("a1", title: "A", line: 2), own,
                                 item("b2", title: "B", line: 4), item("b3", title: "B", author: nil, line: 5),
                                 item("a2", title: "A", line: 6)])
        #expect(books.itemCount == 6)
        #expect(books.natives.map(\.line) == [3])
        #expect(books.books.map { "\($0.title)/\($0.author ?? "-")" } == ["B/Anon", "A/Anon", "B/-"])
        #expect(books.books.map { $0.items.map(\.text) } == [["b1", "b2"], ["a1", "a2"], ["b3"]])
        #expect(books.takeItems(ofBook: 1).map(\.line) == [2, 6])
        #expect(books.books[1].items.isEmpty && books.books[1].title == "A" && books.itemCount == 6)
    }

    @Test func aTitleComposedDifferentlyKeepsItsOwnBytesAndItsId() throws {
        let composed = "Caf\u{E9}"
        let decomposed = "Cafe\u{301}"
        #expect(composed == decomposed && !composed.utf8.elementsEqual(decomposed.utf8))
        let books = ImportBooks([item("one", title: composed, line: 1), item("two", title: decomposed, line: 2)])
        #expect(books.books.count == 1)
        #expect(books.books[0].items.map { Array($0.title.utf8) } == [Array(composed.utf8), Array(decomposed.utf8)])

        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: makeSource([("d", [("d.1", "Nothing of those here.")])]))
        let options = InteropImportOptions(keepUnmatched: true)
        let both = try store.engine.read { try $0.planImport(books.books[0].items, format: .kindle, options: options) }
        let alone = try store.engine.read {
            try $0.planImport([item("two", title: decomposed, line: 2)], format: .kindle, options: options)
        }
        #expect(both.annotations.count == 2 && both.report.unmatchedItems == 2)
        #expect(both.annotations[1].id == alone.annotations[0].id)
        #expect(both.annotations[0].id != both.annotations[1].id)
    }

    @Test func packedItemsUnpackToTheItemsPacked() {
        var items = [
            ImportItem(format: .readwise, kind: .highlight, title: "Walden", author: "Thoreau", text: "",
                       note: "", location: ItemLocation(start: 0, end: Int.max, page: ""), date: Int64.min,
                       color: "", tags: ["", "a,b", "țară"], line: 0, prefix: "", suffix: "", sourceID: ""),
            ImportItem(format: .kindle, kind: .note, title: "Walden", author: "Thoreau", text: "ᚠ 🌲 text\n",
                       note: "a note", location: ItemLocation(start: -5, end: nil, page: "xii"),
                       date: 1_700_000_000_123, color: "yellow", line: 1_234_567),
            ImportItem(format: .w3c, kind: .bookmark, title: "Walde\u{301}n", author: nil, text: "t",
                       location: ItemLocation(start: nil, end: 7), date: -1, line: -3, prefix: "before",
                       suffix: nil, sourceID: "https://example.org/a/1"),
            ImportItem(format: .calibre, kind: .highlight, title: "Walden", author: "Other", text: String(
                repeating: "x", count: 300), line: 127),
        ]
        items.append(ImportItem(format: .koreader, kind: .highlight, title: "Other book", text: "y", line: 128))
        var packed = PackedItems(title: "Walden", author: "Thoreau")
        for item in items { packed.append(item) }
        #expect(packed.count == 5)
        let unpacked = packed.unpacked()
        #expect(unpacked == items)
        #expect(unpacked.map { Array($0.title.utf8) } == items.map { Array($0.title.utf8) })
        #expect(unpacked.map { $0.author.map { Array($0.utf8) } } == items.map { $0.author.map { Array($0.utf8) } })
        #expect(PackedItems(title: "Walden", author: nil).unpacked() == [])
    }

    @Test func aNativeAnnotationIsComparedAndHashedByValue() {
        var first = item("text", title: "T", line: 1)
        var second = first
        first.native = native("0b0e5a34-0000-4000-8000-000000000002", quote: "text")
        second.native = native("0b0e5a34-0000-4000-8000-000000000002", quote: "text")
        #expect(first == second && first.hashValue == second.hashValue)
        #expect(Set([first, second]).count == 1)
        second.native = native("0b0e5a34-0000-4000-8000-000000000002", quote: "other")
        #expect(first != second && second.native?.anchor.quote == "other" && first.native?.anchor.quote == "text")
        second.native = nil
        #expect(second.native == nil && second == item("text", title: "T", line: 1))
    }
}
