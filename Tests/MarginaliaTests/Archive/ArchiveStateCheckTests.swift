import Foundation
import Testing
@testable import Marginalia

/// State records are derived from the changes; where the store's state is the archive's own (an import into an
/// empty store, a restore, a verify), they must agree with the changes.
@Suite struct ArchiveStateCheckTests {
    func archiveWithForgedState(_ directory: TemporaryDirectory) throws -> String {
        let store = try makeStore(directory, source: makeSource([("d", [("d.1", "A fost odată")])]), name: "source.db")
        try store.createAnnotation(.note, at: AnchorRequest(passage: "d.1"), note: "true note")
        let sink = ByteArraySink()
        try store.exportArchive(to: sink)
        let text = String(decoding: try GzipReader(source: ByteArraySource(sink.bytes)).readAll(), as: UTF8.self)
        let forged = text.replacingOccurrences(of: #""note":"true note","color""#, with: #""note":"forged","color""#)
        #expect(forged != text)
        let path = directory.path("forged.jsonl.gz")
        let file = try FileSink(path: path)
        let gzip = try GzipWriter(sink: file)
        try gzip.write(forged)
        try gzip.finish()
        try file.close()
        return path
    }

    @Test func intoAnEmptyStoreAForgedStateRecordIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = try archiveWithForgedState(directory)
        let empty = try makeStore(directory)
        let error = try #require(thrownError(ArchiveError.self) { try empty.importArchive(path: path) })
        #expect(error.kind == .mismatch && error.line == 3)
        #expect(error.reason.hasSuffix("differs from the replay of its changes"))
        #expect(try empty.changeCount() == 0)
        #expect(thrownError(ArchiveError.self) { _ = try ArchiveVerifier.verify(path: path) } != nil)
        #expect(thrownError(ArchiveError.self) {
            _ = try AnnotationStore.restore(archive: path, to: directory.path("restored.db"))
        } != nil)
        #expect(!FileManager.default.fileExists(atPath: directory.path("restored.db")))
    }

    /// The import compares a state record's text with the rebuilt record's first; a record written by another
    /// program, with its keys in another order, is the same record and is accepted.
    @Test func intoAnEmptyStoreAStateRecordWithItsKeysInAnotherOrderIsAccepted() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: makeSource([("d", [("d.1", "A fost odată")])]), name: "source.db")
        let created = try store.createAnnotation(.note, at: AnchorRequest(passage: "d.1"), note: "o notă")
        let exported = directory.path("exported.jsonl.gz")
        try store.exportArchive(toFile: exported)
        var lines = try ArchiveFixtures.lines(ofArchive: exported)
        let index = try #require(lines.firstIndex { $0.contains(#""type":"annotation""#) })
        guard case .object(let record) = try JSONParser.parse(lines[index]) else {
            Issue.record("the state record is not an object")
            return
        }
        let reordered = JSONObject(record.entries.reversed().map { ($0.key, $0.value) })
        #expect(reordered == record)
        lines[index] = try JSONWriter.encodeString(.object(reordered))
        #expect(!lines[index].hasPrefix(#"{"type""#))
        let path = directory.path("reordered.jsonl.gz")
        try ArchiveFixtures.writeArchive(lines, to: path)

        let empty = try makeStore(directory)
        let report = try empty.importArchive(path: path)
        #expect(report.annotationsCreated == 1)
        #expect(try empty.annotation(id: created.id).note == "o notă")

        // In another key order, a forged record is still compared with the replay, and refused.
        let forged = JSONObject(reordered.entries.map { ($0.key, $0.key == "note" ? .string("falsă") : $0.value) })
        lines[index] = try JSONWriter.encodeString(.object(forged))
        let forgedPath = directory.path("reordered-forged.jsonl.gz")
        try ArchiveFixtures.writeArchive(lines, to: forgedPath)
        let another = try makeStore(directory, name: "another.db")
        let error = try #require(thrownError(ArchiveError.self) { try another.importArchive(path: forgedPath) })
        #expect(error.kind == .mismatch && error.line == index + 1)
        #expect(try another.changeCount() == 0)
    }

    @Test func intoAStoreWithItsOwnChangesOnlyTheChangesAreMerged() throws {
        let directory = try TemporaryDirectory()
        let path = try archiveWithForgedState(directory)
        let store = try makeStore(directory, source: makeSource([("d", [("d.1", "A fost odată")])]))
        try store.createAnnotation(.highlight, at: AnchorRequest(passage: "d.1"))
        let report = try store.importArchive(path: path)
        #expect(report.newChanges == 1)
        // The merged state comes from the changes, never from the state records.
        #expect(try store.annotations().compactMap(\.note) == ["true note"])
    }

    @Test func theSourceNeverCopiesADatabaseFileByteByByte() throws {
        // A copy of a live database file can catch it half-written; snapshots go through SQLite.
        let sources = Samples.directory.deletingLastPathComponent().appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
        #expect(files.count > 20)
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            #expect(!text.contains("copyItem("), "\(file)")
            #expect(!text.contains("copyfile("), "\(file)")
        }
    }
}
