import Foundation
import Testing
@testable import Marginalia
import MarginaliaTestSupport

/// Runs python3 (a script in scripts/ on a file, or `-c` code) to its end.
func runPython(_ arguments: [String]) throws -> ChildProcess.Result {
    try ChildProcess("/usr/bin/env", ["python3"] + arguments).run()
}

let hasJSONSchema = (try? runPython(["-c", "import jsonschema, rfc3339_validator, rfc3987"]).status) == 0

@Suite struct InteropExportTests {
    static let scripts = InteropFixtures.directory.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts")

    /// A store with the Romanian clippings (the other book kept as an orphan), a highlight with a color and a
    /// tag, a note, a bookmark with a title and a deleted highlight.
    func store(in directory: TemporaryDirectory) throws -> AnnotationStore {
        let store = try makeStore(directory)
        try store.attachContent(path: try SampleContent.shared.path(edition: 2))
        let items = try KindleClippings.read(try InteropFixtures.romanianClippings, file: "c.txt")
        _ = try store.importItems(items, format: .kindle, options: InteropImportOptions(keepUnmatched: true))
        _ = try store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.3", quote: "împărătești"),
                                       color: "yellow", tags: ["eroina", "ţară"])
        _ = try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.4"), note: "o notă, cu \"ghilimele\"")
        _ = try store.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.9"), note: "aici")
        let gone = try store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.12"))
        _ = try store.deleteAnnotation(id: gone.id)
        return store
    }

    @Test func theW3CExportHoldsEveryLiveAnnotationAndRoundTripsExactly() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        let live = try store.annotations()
        #expect(live.count == 11)
        let path = directory.path("export.json")
        #expect(try store.exportInterop(.w3c, toFile: path) == InteropExportReport(written: 11, leftOut: 0))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
            as? [String: Any])
        #expect(json["type"] as? String == "AnnotationCollection")
        #expect(json["total"] as? Int == 11)
        let items = try #require((json["first"] as? [String: Any])?["items"] as? [[String: Any]])
        #expect(Set(items.compactMap { $0["id"] as? String }) == Set(live.map { "urn:uuid:\($0.id)" }))
        for item in items {
            let id = String((item["id"] as? String ?? "").dropFirst("urn:uuid:".count))
            let annotation = try #require(live.first { $0.id == id })
            let selectors = (item["target"] as? [String: Any])?["selector"] as? [[String: Any]] ?? []
            let quote = selectors.first { $0["type"] as? String == "TextQuoteSelector" }
            if annotation.kind != .bookmark { #expect(quote?["exact"] as? String == annotation.anchor.quote) }
            #expect(item["@context"] as? String == "http://www.w3.org/ns/anno.jsonld")
        }

        // Into an empty store without content: the same annotations.
        let other = try makeStore(directory, name: "other.db")
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(InteropReader.detect(bytes) == .w3c)
        let report = try other.importFile(bytes, name: path)
        #expect(report.created == 11)
        func essence(_ annotations: [Annotation]) -> [String] {
            annotations.sorted { $0.id < $1.id }.map {
                "\($0.id) \($0.kind) \($0.anchor) \($0.note ?? "-") \($0.color ?? "-") \($0.tags)"
            }
        }
        #expect(essence(try other.annotations()) == essence(live))
        // Its own export is the same file but for the modification times.
        let again = directory.path("again.json")
        try other.attachContent(path: try SampleContent.shared.path(edition: 2))
        try other.exportInterop(.w3c, toFile: again)
        func withoutTimes(_ path: String) throws -> [NSDictionary] {
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
            let items = ((object as? [String: Any])?["first"] as? [String: Any])?["items"] as? [[String: Any]] ?? []
            return items.map { item in
                var item = item
                item["modified"] = nil
                return item as NSDictionary
            }
        }
        #expect(try withoutTimes(again) == withoutTimes(path))
        // Into the store it came from: nothing new.
        let back = try store.importFile(bytes, name: path)
        #expect(back.created == 0 && back.updated == 0 && back.duplicates == 11)
    }

    /// The annotations' ids, kinds, anchors, notes, colours, tags and deletions, in id order.
    static func essence(_ annotations: [Annotation]) -> [String] {
        annotations.sorted { $0.id < $1.id }.map {
            "\($0.id) \($0.kind) \($0.anchor) \($0.note ?? "-") \($0.color ?? "-") \($0.tags.sorted()) \($0.deleted)"
        }
    }

    @Test func theCSVExportComesBackExactlyDeletedOnesAndSharedPlacesToo() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        // A highlight over four passages, and two that start in the same passage.
        _ = try store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.1", start: 0, end: 4,
                                                                     endPassage: "luceafarul.4", endOffset: 5),
                                       note: "the opening")
        _ = try store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.1", start: 0, end: 8),
                                       color: "blue")
        let all = try store.annotations(matching: AnnotationFilter(includeDeleted: true))
        #expect(all.contains { $0.deleted } && all.contains { $0.kind == .bookmark })
        let path = directory.path("notes.csv")
        #expect(try store.exportInterop(.csv, toFile: path) == InteropExportReport(written: all.count, leftOut: 0))
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(InteropReader.detect(bytes) == .csv)
        // One row per annotation, and a header.
        #expect(try CSVRecords.records(String(decoding: bytes, as: UTF8.self)).count == all.count + 1)

        let other = try makeStore(directory, name: "other.db")
        let report = try other.importFile(bytes, name: path)
        #expect(report.created == all.count && report.orphaned == 0)
        #expect(Self.essence(try other.annotations(matching: AnnotationFilter(includeDeleted: true)))
                == Self.essence(all))
        // Again: nothing new; into the store it came from: nothing new either.
        let again = try other.importFile(bytes, name: path)
        #expect(again.created == 0 && again.updated == 0)
        let back = try store.importFile(bytes, name: path)
        #expect(back.created == 0 && back.updated == 0 && back.duplicates == all.count)
        // Readwise's layout says what it leaves out.
        let readwise = try store.exportInterop(.readwise, toFile: directory.path("readwise.csv"))
        let live = try store.annotations().count
        #expect(readwise.leftOut > 0 && readwise.written + readwise.leftOut == live)
    }

    @Test(.enabled(if: hasJSONSchema)) func everyExportedAnnotationPassesTheW3CMustAssertions() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        let path = directory.path("export.json")
        try store.exportInterop(.w3c, toFile: path)
        let script = Self.scripts.appendingPathComponent("check_w3c_musts.py").path
        let result = try runPython([script, path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasSuffix("11 annotations, 54 must-assertions each: all pass\n"))
        // The check can fail: a color without its stylesheet breaks assertion 4.4.
        var broken = try String(contentsOfFile: path, encoding: .utf8)
        broken = broken.replacingOccurrences(of: "\"stylesheet\":", with: "\"x-stylesheet\":")
        try broken.write(toFile: path, atomically: true, encoding: .utf8)
        let failing = try runPython([script, path])
        #expect(failing.status == 1)
        #expect(failing.stdout.contains("4.4-styleClassValidIfPresent.json expected valid, got invalid"))
    }

    @Test func markdownNamesTheDocumentsAndHoldsEveryLiveQuoteAndNote() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        let (annotations, context) = try store.exportItems()
        let markdown = MarkdownWriter.render(annotations, context: context)
        #expect(markdown.hasPrefix("# Poezii\n"))
        for title in ["## Luceafărul", "## Mai am un singur dor", "## Scrisoarea I", "## Orphaned", "### Bookmarks"] {
            #expect(markdown.contains("\n\(title)\n"), "\(title)")
        }
        for annotation in annotations where annotation.kind != .bookmark {
            for line in annotation.anchor.quote.split(separator: "\n") {
                #expect(markdown.contains(MarkdownWriter.escape(String(line))), "\(line)")
            }
            if let note = annotation.note { #expect(markdown.contains(MarkdownWriter.escape(note))) }
        }
        #expect(!markdown.contains("Luceafarul asteapta"))
        #expect(markdown.contains("- aici (passage `luceafarul.9`"))
        #expect(markdown.contains("> Sara pe deal"))
        #expect(markdown.contains("#eroina #ţară"))
        #expect(MarkdownWriter.escape("- Ce te legeni, *codrule*") == "\\- Ce te legeni, \\*codrule\\*")
        #expect(MarkdownWriter.escape("1. întâi") == "1\\. întâi")
    }

    @Test func theCSVHasReadwisesColumnsAndOneRowPerHighlightAndNote() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        let path = directory.path("export.csv")
        try store.exportInterop(.readwise, toFile: path)
        let annotations = try store.annotations().filter { $0.kind != .bookmark }
        guard (try? runPython(["-c", "import csv"]).status) == 0 else { return }
        let read = try runPython(["-c", """
            import csv, json, sys
            with open(sys.argv[1], newline="", encoding="utf-8") as f:
                print(json.dumps(list(csv.reader(f))))
            """, path])
        #expect(read.status == 0, "\(read.stdout)\(read.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: read.output) as? [[String]])
        #expect(rows.first == ["Highlight", "Title", "Author", "URL", "Note", "Location", "Date"])
        #expect(rows.count == annotations.count + 1)
        let highlights = Set(rows.dropFirst().map { $0[0] })
        #expect(highlights == Set(annotations.map { $0.anchor.quote.isEmpty ? $0.note ?? "" : $0.anchor.quote }))
        let note = try #require(rows.first { $0[4] == "o notă, cu \"ghilimele\"" })
        #expect(note[1] == "Luceafărul" && note[5] == "4")
        #expect(ReadwiseCSVWriter.field("a,\"b\"\nc") == "\"a,\"\"b\"\"\nc\"")
    }
}
