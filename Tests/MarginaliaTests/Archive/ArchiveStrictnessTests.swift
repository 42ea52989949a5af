import Foundation
import Testing
@testable import Marginalia

/// Refusals found by checking the reader against an independent implementation of the format.
@Suite struct ArchiveStrictnessTests {
    /// An archive of one exported store, as lines, to be edited and written back.
    func exportedLines(_ directory: TemporaryDirectory) throws -> (AnnotationStore, [String]) {
        let store = try makeStore(directory, source: makeSource([("d", [("d.1", "A fost odată ca-n poveşti")])]),
                                  name: "source.db")
        try store.createAnnotation(.highlight, at: AnchorRequest(passage: "d.1"), note: "café", tags: ["poezie"])
        let sink = ByteArraySink()
        try store.exportArchive(to: sink)
        let text = String(decoding: try GzipReader(source: ByteArraySource(sink.bytes)).readAll(), as: UTF8.self)
        return (store, text.split(separator: "\n").map(String.init))
    }

    func write(_ lines: [String], lineEnd: String = "\n", to path: String) throws {
        let sink = try FileSink(path: path)
        let gzip = try GzipWriter(sink: sink)
        try gzip.write(lines.map { $0 + lineEnd }.joined())
        try gzip.finish()
        try sink.close()
    }

    @Test func linesEndingInCRLFAreRefused() throws {
        let directory = try TemporaryDirectory()
        let (_, lines) = try exportedLines(directory)
        let path = directory.path("crlf.jsonl.gz")
        try write(lines, lineEnd: "\r\n", to: path)
        let target = try makeStore(directory)
        let error = try #require(thrownError(ArchiveError.self) { try target.importArchive(path: path) })
        #expect(error == ArchiveError(file: path, line: 1, kind: .invalidRecord,
                                      reason: "the line ends with CR LF; archive lines end with LF alone"))
        #expect(try target.changeCount() == 0)
    }

    @Test func tagsAndColorsMustBeNFC() throws {
        let directory = try TemporaryDirectory()
        let (_, lines) = try exportedLines(directory)
        // "é" decomposed: e + U+0301.
        let decomposed = lines.map { $0.replacingOccurrences(of: "\"poezie\"", with: "\"poezie\u{0301}\"") }
        let path = directory.path("nfd.jsonl.gz")
        try write(decomposed, to: path)
        let target = try makeStore(directory)
        let error = try #require(thrownError(ArchiveError.self) { try target.importArchive(path: path) })
        #expect(error.line == 2)
        #expect(error.reason
            == "change record: field \"fields.tags\": \"poezié\" is not in Unicode normalization form C (NFC)")
        // Typed decomposed on this machine, a tag is stored composed.
        let store = try makeStore(directory, source: makeSource([("d", [("d.1", "text")])]), name: "local.db")
        let made = try store.createAnnotation(.highlight, at: AnchorRequest(passage: "d.1"), tags: ["cafe\u{0301}"])
        #expect(made.tags.map { Array($0.utf8) } == [Array("café".utf8)])
    }

    @Test func aSameIdChangeDifferingOnlyInNormalizationIsAConflict() throws {
        let directory = try TemporaryDirectory()
        let (source, lines) = try exportedLines(directory)
        let target = try makeStore(directory)
        let original = directory.path("original.jsonl.gz")
        try write(lines, to: original)
        try target.importArchive(path: original)
        // The note "café" spelled decomposed, under the same change id: canonically equal, different bytes.
        let changed = lines.map { $0.replacingOccurrences(of: "\"café\"", with: "\"cafe\u{0301}\"") }
        // Compared as bytes: Swift's == on strings would call them equal.
        #expect(changed.map { Array($0.utf8) } != lines.map { Array($0.utf8) })
        let path = directory.path("nfd-note.jsonl.gz")
        try write(changed, to: path)
        let before = try canonicalDump(directory.path("user.db"))
        let error = try #require(thrownError(ArchiveError.self) { try target.importArchive(path: path) })
        #expect(error.kind == .conflict && error.line == 2)
        #expect(try canonicalDump(directory.path("user.db")) == before)
        _ = source
    }

    @Test func clocksPastTheYear9999AreRefused() throws {
        let directory = try TemporaryDirectory()
        let (_, lines) = try exportedLines(directory)
        let future = lines.enumerated().map { index, line in
            index == 1 ? line.replacingOccurrences(of: #""hlc":"0"#, with: #""hlc":"3"#) : line
        }
        let path = directory.path("future.jsonl.gz")
        try write(future, to: path)
        var limits = ArchiveLimits()
        limits.maxClockDrift = Int64.max / 2
        let error = try #require(thrownError(ArchiveError.self) {
            try makeStore(directory).importArchive(path: path, limits: limits)
        })
        #expect(error.line == 2 && error.reason.hasPrefix("change record: field \"hlc\": must be a clock like"))
    }
}
