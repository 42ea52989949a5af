import Foundation
import Testing
@testable import Marginalia

/// The order of editions, and what re-anchoring refuses: an older edition, another work, content that changed.
@Suite struct ReanchorTargetTests {
    @Test func editionsOfOneWorkAreOrderedByTheirNumbers() {
        #expect(EditionOrder.compare("eminescu-2026.1", "eminescu-2026.2") == .orderedAscending)
        #expect(EditionOrder.compare("eminescu-2026.2", "eminescu-2026.1") == .orderedDescending)
        #expect(EditionOrder.compare("eminescu-2026.2", "eminescu-2026.10") == .orderedAscending)
        #expect(EditionOrder.compare("eminescu-2026.10", "eminescu-2027.1") == .orderedAscending)
        #expect(EditionOrder.compare("tiny-1", "tiny-2") == .orderedAscending)
        #expect(EditionOrder.compare("tiny-2", "tiny-2.0") == .orderedSame)
        #expect(EditionOrder.compare("poezii-de-dragoste-3", "poezii-de-dragoste-12") == .orderedAscending)
    }

    @Test func editionsOfDifferentWorksOrOfAnotherFormHaveNoOrder() {
        #expect(EditionOrder.compare("tiny-1", "eminescu-2026.2") == nil)
        #expect(EditionOrder.compare("eminescu", "eminescu-1") == nil)
        #expect(EditionOrder.compare("eminescu-2026.x", "eminescu-2026.1") == nil)
        #expect(EditionOrder.compare("eminescu-2026.", "eminescu-2026.1") == nil)
        #expect(EditionOrder.compare("-1", "-2") == nil)
        #expect(EditionOrder.compare("e-99999999999999999999", "e-1") == nil)
        #expect(!EditionOrder.isOlder("tiny-1", than: "eminescu-2026.2"))
    }

    @Test func reanchoringRecordsTheEditionAndTheAbsolutePath() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory)
        let edition1 = try Samples.buildContent("tiny.json", in: directory)
        let edition2 = try Samples.buildContent("tiny-2.json", in: directory)
        try store.attachContent(path: edition1)
        try store.createAnnotation(.highlight, at: AnchorRequest(passage: "mai-am-un-singur-dor.3"))
        #expect(try store.reconciledContent() == nil)
        try store.attachContent(path: edition2)
        _ = try store.reconcileAnchors(reanchor: true)
        #expect(try store.reconciledContent() == ReconciledContent(edition: "tiny-2", path: edition2))
        // Content found again by its edition alone (a bundled sample): the path is dropped.
        _ = try store.reconcileAnchors(reanchor: true, recordingPath: false)
        #expect(try store.reconciledContent() == ReconciledContent(edition: "tiny-2", path: nil))
    }

    @Test func reanchoringOntoAnOlderEditionIsRefusedAndWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory)
        let edition1 = try Samples.buildContent("tiny.json", in: directory)
        let edition2 = try Samples.buildContent("tiny-2.json", in: directory)
        try store.attachContent(path: edition1)
        try store.createAnnotation(.highlight, at: AnchorRequest(passage: "mai-am-un-singur-dor.3", start: 6, end: 12))
        try store.attachContent(path: edition2)
        _ = try store.reconcileAnchors(reanchor: true)
        let changes = try store.changeCount()
        try store.attachContent(path: edition1)
        #expect(throws: MarginaliaError(ReanchorError.olderEdition(attached: "tiny-1", newer: "tiny-2"))) {
            try store.reconcileAnchors(reanchor: true)
        }
        #expect(try store.changeCount() == changes)
        #expect(try store.reconciledContent() == ReconciledContent(edition: "tiny-2", path: edition2))
        // Checking without writing is allowed, and so is re-anchoring when asked.
        #expect(try store.reconcileAnchors().moved == 1)
        #expect(try store.reconcileAnchors(reanchor: true, allowOlder: true).reanchored == 1)
        #expect(try store.reconciledContent()?.edition == "tiny-1")
    }

    @Test func anOlderEditionThanTheAnnotationsWereMadeOnIsRefusedBeforeAnyReconciliation() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory)
        try store.attachContent(path: try Samples.buildContent("tiny-2.json", in: directory))
        try store.createAnnotation(.bookmark, at: AnchorRequest(passage: "mai-am-un-singur-dor.1"))
        try store.attachContent(path: try Samples.buildContent("tiny.json", in: directory))
        #expect(throws: MarginaliaError(ReanchorError.olderEdition(attached: "tiny-1", newer: "tiny-2"))) {
            try store.reconcileAnchors(reanchor: true)
        }
    }

    @Test func contentSharingNoPassageWithTheAnnotationsIsRefused() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory)
        try store.attachContent(path: try Samples.buildContent("tiny.json", in: directory))
        try store.createAnnotation(.bookmark, at: AnchorRequest(passage: "mai-am-un-singur-dor.1"))
        let other = directory.path("other.db")
        try ContentBuilder.build(
            ContentSource(edition: "other-1", language: "en", title: "Other", documents: [
                ContentSource.Document(id: "d", title: "D", passages: [ContentSource.Passage(id: "d.1", text: "x")]),
            ]), output: other)
        try store.attachContent(path: other)
        #expect(throws: MarginaliaError(ReanchorError.differentWork(attached: "other-1", anchored: "tiny-1"))) {
            try store.reconcileAnchors(reanchor: true)
        }
        #expect(try store.changeCount() == 1)
        #expect(try store.reconciledContent() == nil)
    }

    @Test func aPassageIdReadTwiceIsAnErrorNotATrap() throws {
        let passages = [
            Passage(id: "a.1", document: "a", order: 1, text: "x"),
            Passage(id: "a.2", document: "a", order: 2, text: "y"),
            Passage(id: "a.1", document: "a", order: 3, text: "z"),
        ]
        #expect(throws: ContentError.inconsistent(path: "c.db", reason: "passage a.1 appears twice in document a")) {
            try DocumentCache.index(of: passages, path: "c.db")
        }
        #expect(try DocumentCache.index(of: Array(passages.prefix(2)), path: "c.db") == ["a.1": 0, "a.2": 1])
    }
}
