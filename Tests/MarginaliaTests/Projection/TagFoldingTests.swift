import Foundation
import Testing
@testable import Marginalia

/// A tag filter ignores case and diacritics as search does, cedilla and comma-below alike; tags stay as written.
@Suite struct TagFoldingTests {
    let source = makeSource([("d", [("d.1", "Ţara mea"), ("d.2", "alt rând")])])

    @Test func aTagFilterFindsEverySpellingAndTagsStayAsWritten() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        let cedilla = try store.createAnnotation(.highlight, at: AnchorRequest(passage: "d.1"), tags: ["ţară"])
        let comma = try store.createAnnotation(.highlight, at: AnchorRequest(passage: "d.2"), tags: ["ȚARĂ"])
        let decomposed = try store.createAnnotation(
            .bookmark, at: AnchorRequest(passage: "d.2"), tags: ["t\u{0326}ara\u{0306}"])
        let other = try store.createAnnotation(.highlight, at: AnchorRequest(passage: "d.1"), tags: ["tare"])
        let all = [cedilla.id, comma.id, decomposed.id]
        for typed in ["tara", "TARA", "ţară", "țară", "Tară"] {
            #expect(Set(try store.annotations(matching: AnnotationFilter(tag: typed)).map(\.id)) == Set(all), "\(typed)")
        }
        #expect(try store.annotations(matching: AnnotationFilter(tag: "tare")).map(\.id) == [other.id])
        #expect(try store.annotations(matching: AnnotationFilter(tag: "tar")).isEmpty)
        #expect(try store.annotations(matching: AnnotationFilter(tag: "nicio")).isEmpty)
        // Stored as written (NFC), shown as written.
        #expect(try store.annotation(id: comma.id).tags == ["ȚARĂ"])
        #expect(try store.annotation(id: decomposed.id).tags == ["țară"])
        // A deleted annotation is found with its tag only when deleted ones are asked for.
        try store.deleteAnnotation(id: comma.id)
        #expect(Set(try store.annotations(matching: AnnotationFilter(tag: "tara")).map(\.id))
            == [cedilla.id, decomposed.id])
        #expect(Set(try store.annotations(matching: AnnotationFilter(tag: "tara", includeDeleted: true)).map(\.id))
            == Set(all))
    }

    @Test func untaggingRemovesTheTagHoweverItIsSpelled() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        let made = try store.createAnnotation(.highlight, at: AnchorRequest(passage: "d.1"), tags: ["Ţară", "vis"])
        let edited = try store.editAnnotation(id: made.id, removeTags: ["tara"])
        #expect(edited.tags == ["vis"])
        let change = try #require(try store.history(id: made.id).last)
        #expect(change.fields.tags == ["Ţară": false])
    }
}
