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
}
