import Foundation
import Testing
@testable import Marginalia

/// The items of an import sorted by book as they are read into its scratch database: the order the planning sees,
/// the ids it derives, items packed and unpacked byte for byte, and an item's native annotation held by reference but
/// compared by value.
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

    @Test func interleavedBooksAreSortedInFirstSeenOrderAndNativesApart() throws {
        var own = ImportItem(format: .w3c, kind: .highlight, title: "B", text: "own", line: 3)
        own.native = native("0b0e5a34-0000-4000-8000-000000000001", quote: "own")
        let books = try ImportBooks([item("b1", title: "B", line: 1), item("a1", title: "A", line: 2), own,
                                     item("b2", title: "B", line: 4), item("b3", title: "B", author: nil, line: 5),
                                     item("a2", title: "A", line: 6)])
        #expect(books.itemCount == 6)
        #expect(books.natives.map(\.line) == [3])
        let sorted = try books.books()
        #expect(sorted.map { "\($0.title)/\($0.author ?? "-")" } == ["B/Anon", "A/Anon", "B/-"])
        #expect(try sorted.map { try books.items(of: $0).map(\.text) } == [["b1", "b2"], ["a1", "a2"], ["b3"]])
        #expect(try sorted.map { try books.count(of: $0) } == [2, 2, 1])
        #expect(try books.items(of: sorted[1]).map(\.line) == [2, 6])
        #expect(try books.book(after: sorted[2].id) == nil)
    }

    @Test func aTitleComposedDifferentlyKeepsItsOwnBytesAndItsId() throws {
        let composed = "Caf\u{E9}"
        let decomposed = "Cafe\u{301}"
        #expect(composed == decomposed && !composed.utf8.elementsEqual(decomposed.utf8))
        let books = try ImportBooks([item("one", title: composed, line: 1), item("two", title: decomposed, line: 2)])
        let sorted = try books.books()
        #expect(sorted.count == 1)
        let items = try books.items(of: sorted[0])
        #expect(items.map { Array($0.title.utf8) } == [Array(composed.utf8), Array(decomposed.utf8)])

        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: makeSource([("d", [("d.1", "Nothing of those here.")])]))
        let options = InteropImportOptions(keepUnmatched: true)
        let both = try store.engine.reading {
            try InteropImporter(store: $0).planImport(items, format: .kindle, options: options)
        }
        let alone = try store.engine.reading {
            try InteropImporter(store: $0).planImport([item("two", title: decomposed, line: 2)], format: .kindle, options: options)
        }
        let bothIDs = try both.annotations().map(\.id)
        #expect(bothIDs.count == 2 && both.report.unmatchedItems == 2)
        #expect(bothIDs[1] == (try alone.annotations()).map(\.id)[0])
        #expect(bothIDs[0] != bothIDs[1])
    }

    @Test func packedItemsUnpackToTheItemsPacked() throws {
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
        let packed = items.map { PackedItem.pack($0, title: "Walden", author: "Thoreau") }
        let unpacked = try packed.map { try PackedItem.unpack($0, title: "Walden", author: "Thoreau") }
        #expect(unpacked == items)
        #expect(unpacked.map { Array($0.title.utf8) } == items.map { Array($0.title.utf8) })
        #expect(unpacked.map { $0.author.map { Array($0.utf8) } } == items.map { $0.author.map { Array($0.utf8) } })
        // Bytes cut short are refused, not read past their end.
        #expect(throws: StoreError.self) {
            try PackedItem.unpack(Array(packed[1].dropLast()), title: "Walden", author: "Thoreau")
        }
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
