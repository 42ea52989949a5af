import Foundation
import Testing
@testable import Marginalia

/// Every failure an app can meet has a category it can act on, and keeps its own words.
@Suite struct MarginaliaErrorTests {
    @Test func realFailuresFallIntoTheirCategories() throws {
        let directory = try TemporaryDirectory()
        func category(_ body: () throws -> Void) -> MarginaliaError.Category? {
            do {
                try body()
                return nil
            } catch {
                return MarginaliaError(error).category
            }
        }
        #expect(category { _ = try AnnotationStore.open(path: directory.path("none.db"), access: .readWrite) }
            == .notFound)
        let store = try makeStore(directory, source: makeSource([("d", [("d.1", "text")])]))
        #expect(category { try store.createAnnotation(.highlight, at: AnchorRequest(passage: "NO.SUCH")) }
            == .invalidArgument)
        #expect(category { _ = try store.annotation(id: "00000000-0000-0000-0000-000000000000") } == .notFound)
        try store.createAnnotation(.bookmark, at: AnchorRequest(passage: "d.1"))
        #expect(category { try store.attachContent(path: directory.path("missing-content.db")) }
            == .contentUnavailable)
        try Data("not gzip".utf8).write(to: directory.url.appendingPathComponent("bad.jsonl.gz"))
        #expect(category { try store.importArchive(path: directory.path("bad.jsonl.gz")) } == .invalidData)

        // A damaged row is the store's fault, never the caller's.
        try store.db.executeScript(sql: "DROP TRIGGER changes_refuse_update")
        try store.db.execute(sql: "UPDATE changes SET fields = '{\"bogus\": 1}' WHERE seq = 1")
        #expect(category { _ = try store.log() } == .corruptStore)
    }

    @Test func descriptionsAreTheUnderlyingErrorsOwnWords() {
        let error = MarginaliaError(StoreError.passageNotFound(id: "x.1"))
        #expect(error.description == "no passage x.1 in the attached content")
        #expect(error.localizedDescription == "no passage x.1 in the attached content")
        #expect(MarginaliaError(CancellationError()).category == .cancelled)
        #expect(MarginaliaError(IOError.posix("write", path: "f", code: ENOSPC)).category == .diskFull)
        #expect(MarginaliaError(IOError.posix("write", path: "f", code: EIO)).errno == EIO)
        #expect(MarginaliaError(SQLiteError(extendedCode: 5, message: "database is locked")).category == .busy)
    }

    /// The facts an app reads off an error (the file and line, the id, the field) come from real failures.
    @Test func realFailuresNameTheirFacts() throws {
        let directory = try TemporaryDirectory()
        func failure(_ body: () throws -> Void) -> MarginaliaError? {
            do {
                try body()
                return nil
            } catch {
                return error as? MarginaliaError
            }
        }
        let missing = directory.path("none.db")
        let notFound = try #require(failure { _ = try AnnotationStore.open(path: missing, access: .readWrite) })
        #expect(notFound.file == missing && notFound.line == nil && notFound.id == nil)

        let store = try makeStore(directory, source: makeSource([("d", [("d.1", "text")])]))
        let noPassage = try #require(failure {
            try store.createAnnotation(.highlight, at: AnchorRequest(passage: "NO.SUCH"))
        })
        #expect(noPassage.id == "NO.SUCH" && noPassage.file == nil)

        // A change handed to merge whose note holds a NUL: its id and the field, as values.
        let note = try store.createAnnotation(.note, at: AnchorRequest(passage: "d.1"), note: "notă")
        var bad = try #require(try store.changes(after: nil).last)
        bad.changeID = "refused-change"
        bad.fields.note = "a\u{0}b"
        let refused = try #require(failure { try store.merge([bad]) })
        #expect(refused.category == .invalidArgument && refused.id == "refused-change"
            && refused.field == "fields.note" && refused.file == nil)
        #expect(refused.description == #"change 1 (refused-change): field "fields.note": contains a NUL character"#)
        #expect(try store.annotation(id: note.id).note == "notă")

        // An archive whose second line is not JSON: the file and the line.
        let archive = directory.path("bad-line.jsonl.gz")
        try store.exportArchive(toFile: archive)
        let lines = try ArchiveFixtures.lines(ofArchive: archive)
        try ArchiveFixtures.writeArchive([lines[0], "{not json"] + lines.dropFirst(2), to: archive)
        let badLine = try #require(failure { try store.importArchive(path: archive) })
        #expect(badLine.category == .invalidData && badLine.file == archive && badLine.line == 2)

        // A key that is not an age recipient, parsed outside the store: still a MarginaliaError.
        let notAKey = try #require(failure { _ = try AgeRecipient(parsing: "age1notakey") })
        #expect(notAKey.category == .invalidArgument && notAKey.file == nil)
        #expect(MarginaliaError(FieldError(field: "note", reason: "not a string")).field == "note")
    }
}
