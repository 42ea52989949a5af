import Foundation
import Testing
@testable import Marginalia

/// Receipts in archives (format 4): a restore keeps where its changes came from; an import makes its own.
@Suite struct ArchiveReceiptTests {
    /// A store with changes of its own and changes merged from another store (one `merge` receipt).
    static func storeWithMergedChanges(_ directory: TemporaryDirectory) throws
        -> (store: AnnotationStore, merged: [Change], own: Change)
    {
        let source = makeSource([("d", [("d.1", "A fost odată ca-n povești"), ("d.2", "A fost ca niciodată")])])
        let other = try makeStore(directory, source: source, name: "other.db")
        try other.createAnnotation(.highlight, at: AnchorRequest(passage: "d.1"))
        try other.nameDevice("phone")
        let merged = try other.changes(after: nil)
        let store = try makeStore(directory, source: source)
        try store.merge(merged)
        let own = try store.nameDevice("laptop")
        return (store, merged, own)
    }

    @Test func aRestoreKeepsTheReceiptsTheBackupCarries() throws {
        let directory = try TemporaryDirectory()
        let (store, merged, own) = try Self.storeWithMergedChanges(directory)
        let original = try #require(try store.receipts().first)
        #expect(original.kind == .merge)
        let backup = directory.path("backup.jsonl.gz")
        try store.backup(to: backup)
        let restoredPath = directory.path("restored.db")
        try AnnotationStore.restore(archive: backup, to: restoredPath)
        let restored = try AnnotationStore.open(path: restoredPath, access: .readOnly)
        let receipts = try restored.receipts()
        #expect(receipts.map(\.kind) == [.merge, .restore])
        #expect(receipts[0].receivedAt == original.receivedAt)
        #expect(receipts[0].newChanges == original.newChanges)
        #expect(receipts[1].newChanges == 1)
        let by = try restored.receipts(ofChanges: merged.map(\.changeID) + [own.changeID])
        for change in merged { #expect(by[change.changeID]?.kind == .merge) }
        #expect(by[own.changeID]?.kind == .restore)
        #expect(try restored.verify().isHealthy)
        #expect(try restored.deviceNames().values.sorted() == ["laptop", "phone"])
    }

    @Test func anImportIsItsOwnReceiptWhateverTheArchiveCarries() throws {
        let directory = try TemporaryDirectory()
        let (store, _, _) = try Self.storeWithMergedChanges(directory)
        let archive = directory.path("export.jsonl.gz")
        try store.exportArchive(toFile: archive)
        let text = try ArchiveFixtures.lines(ofArchive: archive)
        #expect(text[0].contains(#""formatVersion":4"#))
        #expect(text[1].hasPrefix(#"{"type":"receipt","id":1,"kind":"merge","#))
        let other = try AnnotationStore.open(path: directory.path("third.db"), access: .create)
        let report = try other.importArchive(path: archive)
        #expect(report.newChanges == 3)
        #expect(try other.receipts().map(\.kind) == [.import])
        #expect(try other.receipts().first?.newChanges == 3)
    }

    @Test func anOlderArchiveWithoutReceiptsStillRestores() throws {
        let directory = try TemporaryDirectory()
        let fixture = SchemaFixtureTests.fixtures.appendingPathComponent("schema-6/archive-format3-schema6.jsonl.gz").path
        let restoredPath = directory.path("restored.db")
        try AnnotationStore.restore(archive: fixture, to: restoredPath)
        let restored = try AnnotationStore.open(path: restoredPath, access: .readOnly)
        #expect(try restored.receipts().map(\.kind) == [.restore])
        #expect(try restored.verify().isHealthy)
    }
}
