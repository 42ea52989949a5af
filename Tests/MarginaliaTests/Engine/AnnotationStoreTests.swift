import Foundation
import Testing
@testable import Marginalia

@Suite struct AnnotationStoreTests {
    let source = makeSource([
        ("luceafarul", [
            ("luceafarul.1", "A fost odată ca-n poveşti,"),
            ("luceafarul.2", "A fost ca niciodată,"),
        ]),
    ])

    @Test func everyMutationWritesOneChangeAndTheCurrentRow() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        let made = try store.createAnnotation(
            .highlight, at: AnchorRequest(passage: "luceafarul.1", start: 0, end: 6), note: "început", color: "yellow",
            tags: ["basm"])
        #expect(made.anchor.quote == "A fost")
        #expect(made.note == "început" && made.color == "yellow" && made.tags == ["basm"])
        let edited = try store.editAnnotation(id: made.id, note: "alt început", color: "", addTags: ["eminescu"],
                                              removeTags: ["basm"])
        #expect(edited.note == "alt început" && edited.color == nil && edited.tags == ["eminescu"])
        let deleted = try store.deleteAnnotation(id: made.id)
        #expect(deleted.deleted)
        #expect(try store.annotations().isEmpty)
        #expect(try store.annotations(matching: AnnotationFilter(includeDeleted: true)).map(\.id) == [made.id])
        let back = try store.undeleteAnnotation(id: made.id)
        #expect(!back.deleted && back.note == "alt început")
        let history = try store.history(id: made.id)
        #expect(history.map(\.operation) == [.create, .edit, .delete, .undelete])
        #expect(history.map(\.device) == Array(repeating: store.deviceID, count: 4))
        #expect(zip(history, history.dropFirst()).allSatisfy { $0.hlc < $1.hlc })
        #expect(history[1].fields
            == ChangeFields(note: "alt început", color: "", tags: ["basm": false, "eminescu": true]))
        #expect(back.createdAt == history[0].hlc && back.updatedAt == history[3].hlc)
        #expect(try store.verify().isHealthy)
    }

    @Test func refusedEditsWriteNothing() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        let made = try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.2"), note: "n")
        #expect(throws: MarginaliaError(StoreError.unchanged(
            id: made.id, reason: "annotation \(made.id) already has those values"))) {
            try store.editAnnotation(id: made.id, note: "n")
        }
        #expect(throws: MarginaliaError(StoreError.unchanged(id: made.id, reason: "annotation \(made.id) is not deleted"))) {
            try store.undeleteAnnotation(id: made.id)
        }
        #expect(throws: MarginaliaError(StoreError.invalidChange(
            reason: "field \"tags\": \" x\" has control characters or surrounding spaces"))) {
            try store.editAnnotation(id: made.id, addTags: [" x"])
        }
        try store.deleteAnnotation(id: made.id)
        #expect(throws: MarginaliaError(StoreError.invalidChange(reason: "annotation \(made.id) is deleted; undelete it first"))) {
            try store.editAnnotation(id: made.id, note: "m")
        }
        #expect(try store.changeCount() == 2)
    }

    @Test func idsResolveFromAUniquePrefix() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        let made = try store.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.2"), note: "aici")
        #expect(try store.annotation(id: String(made.id.prefix(6))).id == made.id)
        #expect(throws: MarginaliaError(StoreError.idPrefixTooShort(prefix: "abc", kind: .annotation, minimum: 4))) {
            _ = try store.annotation(id: "abc")
        }
        #expect(throws: MarginaliaError(StoreError.annotationNotFound(id: "ffffffff"))) { _ = try store.annotation(id: "ffffffff") }
    }

    @Test func listingFiltersAndFollowsReadingOrder() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        let second = try store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.2"), tags: ["a"])
        let first = try store.createAnnotation(
            .note, at: AnchorRequest(passage: "luceafarul.1", start: 2, end: 6), note: "x")
        #expect(try store.annotations().map(\.id) == [first.id, second.id])
        #expect(try store.annotations(matching: AnnotationFilter(kind: .highlight)).map(\.id) == [second.id])
        #expect(try store.annotations(matching: AnnotationFilter(tag: "a")).map(\.id) == [second.id])
        #expect(try store.annotations(matching: AnnotationFilter(passage: "luceafarul.1")).map(\.id) == [first.id])
        #expect(try store.annotations(matching: AnnotationFilter(document: "other")).isEmpty)
        // Without content, the order is the order they were made.
        try store.detachContent()
        #expect(try store.annotations().map(\.id) == [second.id, first.id])
    }

    @Test func readingPositionsAreCheckedAndLastWriterWins() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        try store.setPosition(document: "luceafarul", at: TextPosition(passage: "luceafarul.1", offset: 4))
        let later = try store.setPosition(document: "luceafarul", at: TextPosition(passage: "luceafarul.2", offset: 0))
        #expect(try store.position(document: "luceafarul") == later)
        #expect(throws: MarginaliaError(StoreError.documentNotFound(id: "nope"))) {
            try store.setPosition(document: "nope", at: TextPosition(passage: "luceafarul.1", offset: 0))
        }
        #expect(throws: MarginaliaError(StoreError.invalidAnchor(reason: "offset 99 is past the end of luceafarul.1 (26 characters)"))) {
            try store.setPosition(document: "luceafarul", at: TextPosition(passage: "luceafarul.1", offset: 99))
        }
        #expect(try store.verify().isHealthy)
    }

    @Test func verifyFindsARowEditedBehindTheLogsBack() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        let made = try store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.1"), note: "n")
        try store.setPosition(document: "luceafarul", at: TextPosition(passage: "luceafarul.2", offset: 1))
        #expect(try store.verify().problems == [])
        try store.db.execute(sql: "UPDATE annotations SET note = 'forged' WHERE id = ?", arguments: [made.id])
        try store.db.execute(sql: "UPDATE positions SET offset = 3")
        try store.db.execute(
            sql: """
                INSERT INTO annotations (id, kind, document, start_passage, start_offset, end_passage, end_offset,
                    quote, prefix, suffix, created_edition, anchor_edition, note, color, tags, deleted, created_hlc,
                    updated_hlc, clocks)
                SELECT 'ghost', kind, document, start_passage, start_offset, end_passage,
                end_offset, quote, prefix, suffix, created_edition, anchor_edition, note, color, tags, deleted,
                created_hlc, updated_hlc, clocks FROM annotations WHERE id = ?
                """,
            arguments: [made.id])
        let report = try store.verify()
        #expect(report.problems == [
            "annotations: row \(made.id) differs from the replay of its 1 changes",
            "annotations: row ghost exists but the log never creates it",
            "positions: row luceafarul differs from the replay of its changes",
        ])
    }

    @Test func theStoreWorksWithoutContentAndAMissingContentFileIsNotCreated() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        let made = try store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.1"))
        let reopened = try AnnotationStore.open(path: directory.path("user.db"), access: .readOnly)
        let missing = directory.path("gone.db")
        #expect(throws: MarginaliaError(ContentError.missing(path: missing))) { try reopened.attachContent(path: missing) }
        #expect(!FileManager.default.fileExists(atPath: missing))
        let notContent = directory.path("user.db")
        #expect(throws: MarginaliaError(ContentError.notContent(path: notContent, reason: "it is a user store, not content"))) {
            try reopened.attachContent(path: notContent)
        }
        #expect(reopened.content == nil)
        #expect(try reopened.annotations().map(\.id) == [made.id])
        #expect(try reopened.history(id: made.id).count == 1)
        #expect(try reopened.verify().isHealthy)
    }

    @Test func swappingTheContentEditionLeavesTheStoreByteForByte() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        try store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.1", quote: "poveşti"))
        let path = directory.path("user.db")
        let before = try canonicalDump(path)
        var edition2 = source
        edition2.edition = "test-2"
        edition2.documents[0].passages[0].text = "A fost odată ca-n povești,"
        let content2 = directory.path("content-2.db")
        try ContentBuilder.build(edition2, output: content2)
        let reopened = try AnnotationStore.open(path: path, access: .readWrite)
        try reopened.attachContent(path: content2)
        #expect(reopened.content?.edition == "test-2")
        _ = try reopened.annotations()
        #expect(try canonicalDump(path) == before)
    }
}
