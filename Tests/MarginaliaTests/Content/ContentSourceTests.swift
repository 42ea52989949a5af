import Foundation
import Testing
@testable import Marginalia

@Suite struct ContentSourceTests {
    func read(_ text: String) throws -> ContentSource {
        try ContentSource(bytes: Array(text.utf8), path: "src.json")
    }

    func document(_ passages: String, id: String = "d") -> String {
        #"""
        {"edition": "e-1", "language": "ro", "title": "T", "documents": [{"id": "\#(id)", "title": "D", \#
        "passages": [\#(passages)]}]}
        """#
    }

    @Test func readsTheSourceFormatAndNormalizesToNFC() throws {
        // "ă" written decomposed (a + U+0306) becomes the single code point U+0103.
        let source = try read(document(#"{"id": "d.1", "text": "odata\u0306"}, {"id": "d.2", "text": "b"}"#))
        #expect(source.edition == "e-1" && source.language == "ro" && source.title == "T")
        #expect(source.documents.map(\.id) == ["d"])
        #expect(source.documents[0].passages.map(\.text) == ["odată", "b"])
        #expect(source.documents[0].passages[0].text.unicodeScalars.count == 5)
    }

    @Test func refusalsNameTheDocumentPassageAndField() {
        let cases: [(String, ContentError)] = [
            (document(#"{"id": "d.1", "text": "a"}, {"id": "d.1", "text": "b"}"#),
             .invalidSource(path: "src.json", location: #"documents[0] (id "d"): passages[1] (id "d.1")"#,
                            reason: #"duplicate passage id "d.1" (also in document "d")"#)),
            (document(#"{"id": "", "text": "a"}"#),
             .invalidSource(path: "src.json", location: "documents[0] (id \"d\"): passages[0]",
                            reason: #"field "id": must not be empty"#)),
            (document(#"{"id": "d.1", "text": "   "}"#),
             .invalidSource(path: "src.json", location: #"documents[0] (id "d"): passages[0] (id "d.1")"#,
                            reason: #"field "text": must not be empty or only white space"#)),
            (document(#"{"id": "d.1", "text": 5}"#),
             .invalidSource(path: "src.json", location: #"documents[0] (id "d"): passages[0] (id "d.1")"#,
                            reason: #"field "text": must be a string"#)),
            (document(#"{"id": "d.1", "txt": "a"}"#),
             .invalidSource(path: "src.json", location: #"documents[0] (id "d"): passages[0] (id "d.1")"#,
                            reason: #"unknown field "txt" (expected id, text)"#)),
            (document(""),
             .invalidSource(path: "src.json", location: #"documents[0] (id "d")"#,
                            reason: #"field "passages": must not be empty"#)),
            (#"{"edition": "e", "language": "ro", "title": "T", "documents": []}"#,
             .invalidSource(path: "src.json", location: "", reason: #"field "documents": must not be empty"#)),
            (#"{"language": "ro", "title": "T", "documents": []}"#,
             .invalidSource(path: "src.json", location: "", reason: #"field "edition": required"#)),
            (#"[1]"#, .invalidSource(path: "src.json", location: "", reason: "the top level must be an object")),
        ]
        for (text, expected) in cases {
            #expect(throws: expected) { _ = try read(text) }
        }
    }

    @Test func duplicateDocumentIdsAreRefused() {
        let text = #"{"edition": "e", "language": "ro", "title": "T", "documents": ["#
            + #"{"id": "a", "title": "A", "passages": [{"id": "a.1", "text": "x"}]},"#
            + #"{"id": "a", "title": "B", "passages": [{"id": "b.1", "text": "y"}]}]}"#
        #expect(throws: ContentError.invalidSource(
            path: "src.json", location: #"documents[1] (id "a")"#, reason: #"duplicate document id "a""#)) {
            _ = try read(text)
        }
    }

    @Test func malformedJSONIsReportedWithLineAndColumn() {
        let text = "{\"edition\": \"e\",\n  \"title\": \"Ţară\" \"x\"}"
        let error = #expect(throws: ContentError.self) { _ = try read(text) }
        guard case .invalidJSON(let path, let line, let column, _)? = error else {
            Issue.record("expected invalid JSON, got \(String(describing: error))")
            return
        }
        #expect(path == "src.json" && line == 2 && column == 19)
    }

    @Test func aMissingSourceFileIsNamed() {
        #expect(throws: ContentError.unreadable(path: "/nonexistent/src.json", reason: "no such file")) {
            _ = try ContentSource(path: "/nonexistent/src.json")
        }
    }

    @Test func buildingIsAtomicAndDeterministic() throws {
        let directory = try TemporaryDirectory()
        let source = makeSource([("d", [("d.1", "A fost odată"), ("d.2", "ca-n poveşti")])])
        let output = directory.path("c.db")
        let info = try ContentBuilder.build(source, output: output)
        #expect(info.passageCount == 2 && info.documentCount == 1 && info.edition == "test-1")
        let first = try canonicalDump(output)
        try ContentBuilder.build(source, output: output, force: true)
        #expect(try canonicalDump(output) == first)
        // Only the database is left in the directory: no temporary file.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["c.db"])
        let db = try SQLiteDatabase(path: output, mode: .readOnly)
        #expect(try db.int(sql: "PRAGMA application_id") == Int64(ContentSchema.applicationID))
        #expect(try db.text(sql: "PRAGMA journal_mode") == "delete")
    }
}
