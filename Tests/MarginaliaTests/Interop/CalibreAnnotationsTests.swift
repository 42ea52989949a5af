import Foundation
import Testing
@testable import Marginalia

/// Calibre's annotation collection: a foreign one anchored by its texts, and ours back exactly.
@Suite struct CalibreAnnotationsTests {
    static let foreign = """
        {"version": 1, "type": "calibre_annotation_collection", "annotations": [
          {"type": "highlight", "uuid": "aGVsbG8", "highlighted_text": "Din rude mari împărătești",
           "notes": "chemarea", "timestamp": "2024-03-01T10:00:00.000Z",
           "style": {"kind": "color", "type": "builtin", "which": "purple"}, "toc_family_titles": ["Luceafărul"],
           "spine_index": 2, "start_cfi": "/2/4", "end_cfi": "/2/6"},
          {"type": "highlight", "uuid": "Z29uZQ", "highlighted_text": "Era una la părinți", "removed": true,
           "timestamp": "2024-03-02T10:00:00.000Z", "toc_family_titles": ["Luceafărul"]},
          {"type": "bookmark", "title": "de citit", "pos": "epubcfi(/6/4)", "pos_type": "epubcfi",
           "timestamp": "2024-03-03T10:00:00.000Z"}
        ]}
        """

    @Test func aCalibreExportIsAnchoredByItsTextAndComesInOnce() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory)
        try store.attachContent(path: try SampleContent.shared.path(edition: 2))
        let bytes = Array(Self.foreign.utf8)
        #expect(InteropReader.detect(bytes) == .calibre)
        let items = try InteropReader.read(bytes, format: .calibre, file: "a.calibre_annotation_collection")
        #expect(items.count == 2, "the removed highlight is left out")
        let report = try store.importFile(bytes, name: "a.json", options: InteropImportOptions(keepUnmatched: true))
        #expect(report.created == 2 && report.anchored == 1)
        let highlight = try #require(try store.annotations().first { $0.kind == .highlight })
        #expect(highlight.anchor.document == "luceafarul" && highlight.note == "chemarea" && highlight.color == "purple")
        let again = try store.importFile(bytes, name: "a.json", options: InteropImportOptions(keepUnmatched: true))
        #expect(again.created == 0 && again.duplicates == 2)
    }

    @Test func ourCalibreExportComesBackExactly() throws {
        let directory = try TemporaryDirectory()
        let store = try InteropExportTests().store(in: directory)
        let all = try store.annotations(matching: AnnotationFilter(includeDeleted: true))
        let path = directory.path("notes.calibre_annotation_collection")
        #expect(try store.exportInterop(.calibre, toFile: path) == InteropExportReport(written: all.count, leftOut: 0))
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(InteropReader.detect(bytes) == .calibre)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(object["type"] as? String == "calibre_annotation_collection" && object["version"] as? Int == 1)
        let other = try makeStore(directory, name: "other.db")
        let report = try other.importFile(bytes, name: path)
        #expect(report.created == all.count)
        #expect(InteropExportTests.essence(try other.annotations(matching: AnnotationFilter(includeDeleted: true)))
                == InteropExportTests.essence(all))
        #expect(try store.importFile(bytes, name: path).duplicates == all.count)
    }
}
