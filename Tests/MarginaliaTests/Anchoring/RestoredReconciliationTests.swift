import Foundation
import Testing
@testable import Marginalia

/// A restored store says the content is new only when the store it was backed up from would have said so.
@Suite struct RestoredReconciliationTests {
    let edition1 = makeSource(edition: "w-1", [("d", [("d.1", "alpha beta"), ("d.2", "o pagină care pleacă")])])
    let edition2 = makeSource(edition: "w-2", [("d", [("d.1", "un alpha beta")])])

    @Test func aRestoredStoreDoesNotWarnAboutAnEditionTheOriginalNeverWarnedAbout() throws {
        let directory = try TemporaryDirectory()
        let original = try makeStore(directory, source: edition1)
        let moved = try original.createAnnotation(.highlight, at: AnchorRequest(passage: "d.1", start: 6, end: 10))
        _ = try original.createAnnotation(.bookmark, at: AnchorRequest(passage: "d.2"), note: "orfan")
        let second = directory.path("content-w-2.db")
        try ContentBuilder.build(edition2, output: second)
        try original.attachContent(path: second)
        // Before re-anchoring, both the original and a copy restored from it say so.
        #expect(try original.pendingReconciliation() == "w-1")
        let report = try original.reconcileAnchors(reanchor: true)
        #expect(report.reanchored == 1 && report.orphaned == 1)
        #expect(try original.annotation(id: moved.id).anchor.start.offset == 9)
        #expect(try original.pendingReconciliation() == nil)

        let archive = directory.path("backup.jsonl.gz")
        try original.exportArchive(toFile: archive)
        let restoredPath = directory.path("restored.db")
        _ = try AnnotationStore.restore(archive: archive, to: restoredPath)
        let restored = try AnnotationStore.open(path: restoredPath, access: .readOnly)
        try restored.attachContent(path: second)
        // The orphan is still anchored on w-1, but the log's newest re-anchoring was onto w-2.
        #expect(try restored.anchoredEditions().sorted() == ["w-1", "w-2"])
        #expect(try restored.reconciledContent() == nil)
        #expect(try restored.pendingReconciliation() == nil)
        // Edition 1 again is a change from what it was reconciled with, as for the original.
        let first = directory.path("content-w-1.db")
        try restored.attachContent(path: first)
        try original.attachContent(path: first)
        #expect(try restored.pendingReconciliation() == "w-2")
        #expect(try original.pendingReconciliation() == "w-2")
    }
}
