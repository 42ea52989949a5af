import Foundation
import Testing
@testable import Marginalia
import MarginaliaTestSupport

/// Reconciliation against the real sample editions: edition 2 respells every cedilla letter, drops soft hyphens,
/// rewords lines, deletes and inserts passages and removes a poem (see samples/CHANGES-2026.2.md).
@Suite struct ReconciliationTests {
    /// A store with annotations on edition 1: one in every few passages, seeded, of every kind.
    func annotatedStore(_ directory: TemporaryDirectory,
                        seed: UInt64) throws -> (AnnotationStore, [String: Annotation]) {
        let store = try makeStore(directory)
        let edition1 = try Samples.buildContent("eminescu-2026.1.json", in: directory)
        try store.attachContent(path: edition1)
        var random = SeededGenerator(seed: seed)
        var made: [String: Annotation] = [:]
        try store.batch {
            for document in try store.documents() {
                for passage in try store.passages(document: document.id)
                    where Int.random(in: 0..<9, using: &random) == 0 {
                    let length = passage.text.unicodeScalars.count
                    guard length >= 4 else { continue }
                    let start = Int.random(in: 0..<(length / 2), using: &random)
                    let end = Int.random(in: (start + 2)...length, using: &random)
                    let kind: AnnotationKind = [.highlight, .highlight, .note, .bookmark]
                        .randomElement(using: &random) ?? .note
                    let annotation = try store.createAnnotation(
                        kind, at: AnchorRequest(passage: passage.id, start: start, end: end),
                        note: kind == .highlight ? nil : "notă \(passage.id)")
                    made[annotation.id] = annotation
                }
            }
        }
        return (store, made)
    }

    @Test func everyAnnotationIsAccountedForAndMovesPointAtMatchingText() throws {
        let seed = TestSeed.fromEnvironment() ?? 20_261_129
        let directory = try TemporaryDirectory()
        let (store, made) = try annotatedStore(directory, seed: seed)
        #expect(made.count > 500, "seed \(seed)")
        let before = try canonicalDump(directory.path("user.db"))
        try store.attachContent(path: try Samples.buildContent("eminescu-2026.2.json", in: directory))
        let report = try store.reconcileAnchors()
        #expect(try canonicalDump(directory.path("user.db")) == before, "checking writes nothing")
        #expect(report.total == made.count && report.unchecked == 0, "seed \(seed)")
        #expect(report.intact + report.moved + report.orphaned == made.count)
        #expect(report.moved > 50, "respelled and reworded passages move; seed \(seed)")
        #expect(report.orphaned >= 1, "the removed poem's annotations; seed \(seed)")
        for check in report.checks where check.status == .moved {
            let anchor = try #require(check.newAnchor)
            // The new anchor's quote is the text at its offsets in edition 2 …
            let span = try PassageSpan(passagesBetween(anchor.start.passage, anchor.end.passage, in: store))
            let start = span.starts[0] + anchor.start.offset
            let end = span.starts[span.passages.count - 1] + anchor.end.offset
            #expect(span.text(start..<end) == anchor.quote, "seed \(seed) \(check.annotation.id)")
            // … and that text matches the old quote (folded, or within the edit threshold).
            let old = FoldedText(check.annotation.anchor.quote, level: .words).scalars
            let new = FoldedText(anchor.quote, level: .words).scalars
            #expect(old == new || levenshtein(old, new) <= Int(Double(old.count) * AnchorMatcher.maxEditRatio) + 2,
                    "seed \(seed): “\(check.annotation.anchor.quote)” → “\(anchor.quote)”")
        }
        for check in report.checks where check.status == .orphaned {
            #expect(check.reason != nil)
            #expect(made[check.annotation.id]?.note == check.annotation.note, "orphans keep their note")
        }
        // Re-anchoring writes once, then nothing.
        let first = try store.reconcileAnchors(reanchor: true)
        #expect(first.reanchored == report.moved && first.confirmed == report.intact)
        let changes = try store.changeCount()
        let second = try store.reconcileAnchors(reanchor: true)
        #expect(second.reanchored == 0 && second.confirmed == 0 && second.moved == 0)
        #expect(second.intact == report.intact + report.moved)
        // Every annotation that is not orphaned is now anchored on edition 2: the edition it was last reconciled with.
        let orphans = Set(report.checks.filter { $0.status == .orphaned }.map(\.annotation.id))
        for annotation in try store.annotations(matching: AnnotationFilter(includeDeleted: true)) {
            #expect(annotation.anchor.edition
                == (orphans.contains(annotation.id) ? "eminescu-2026.1" : "eminescu-2026.2"))
            #expect(annotation.createdEdition == "eminescu-2026.1")
        }
        #expect(try store.changeCount() == changes)
        #expect(try store.annotationCounts().live + store.annotationCounts().deleted == made.count, "nothing lost")
        #expect(try store.verify().isHealthy)
    }

    @Test func aWriteDuringTheChecksOfAReanchoringNeitherWaitsNorIsLost() throws {
        let directory = try TemporaryDirectory()
        let (store, made) = try annotatedStore(directory, seed: 7)
        try store.attachContent(path: try Samples.buildContent("eminescu-2026.2.json", in: directory))
        let written = WriteDuringWork()
        // While the anchors are being checked: a write from another thread, as the UI's, finishes now.
        store.progressHandler = written.handler(at: "checking anchors", done: 500) {
            try store.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.1")).id
        }
        let report = try store.reconcileAnchors(reanchor: true)
        written.settle()
        store.progressHandler = nil
        #expect(written.finishedInTime, "the write waited for the re-anchoring")
        // Checked again under the lock: the new bookmark (made on edition 2) is counted too, and every annotation
        // is on edition 2 now, as a second run confirms by writing nothing.
        #expect(report.total == made.count + 1)
        let changes = try store.changeCount()
        _ = try store.reconcileAnchors(reanchor: true)
        #expect(try store.changeCount() == changes)
        #expect(try store.verify().isHealthy)
    }

    @Test func theSamplesKnownChangesAreClassifiedAsExpected() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory)
        try store.attachContent(path: try Samples.buildContent("eminescu-2026.1.json", in: directory))
        func highlight(_ passage: String, _ quote: String? = nil) throws -> String {
            try store.createAnnotation(.highlight, at: AnchorRequest(passage: passage, quote: quote)).id
        }
        let respelled = try highlight("scrisoarea-i.6", "simţim ca-n vis")
        let softHyphen = try highlight("fata-n-gradina-de-aur.1")
        let punctuation = try highlight("glossa.1", "vreme vine")
        let reordered = try highlight("mortua-est.63", "în ce o să stâng")
        let deletedLine = try highlight("strigoii.28")
        let removedPoem = try highlight("si-daca-de-cu-ziua.2")
        let untouched = try highlight("scrisoarea-i.2", "ceasornicul")
        try store.attachContent(path: try Samples.buildContent("eminescu-2026.2.json", in: directory))
        let checks = Dictionary(
            uniqueKeysWithValues: try store.reconcileAnchors().checks.map { ($0.annotation.id, $0) })
        #expect(checks[untouched] == nil, "intact")
        #expect(checks[respelled]?.status == .moved && checks[respelled]?.match == "folded")
        #expect(checks[respelled]?.newAnchor?.quote == "simțim ca-n vis")
        #expect(checks[softHyphen]?.status == .moved && checks[softHyphen]?.match == "folded")
        #expect(checks[softHyphen]?.newAnchor?.quote == "A fost odat-un împărat el fu-ncă")
        #expect(checks[punctuation]?.status == .moved && checks[punctuation]?.match == "exact")
        #expect(checks[punctuation]?.newAnchor?.start.offset == 13)
        #expect(checks[reordered]?.status == .moved && checks[reordered]?.match == "close, 4 edits")
        #expect(checks[deletedLine]?.status == .orphaned
            && checks[deletedLine]?.reason == "passage strigoii.28 is gone")
        #expect(checks[removedPoem]?.reason == "document si-daca-de-cu-ziua is gone")
    }

    @Test func withoutContentEverythingIsUnchecked() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: makeSource([("d", [("d.1", "A fost odată")])]))
        try store.createAnnotation(.highlight, at: AnchorRequest(passage: "d.1"))
        try store.detachContent()
        let report = try store.reconcileAnchors()
        #expect(report.unchecked == 1 && report.total == 1)
        #expect(throws: MarginaliaError(StoreError.contentUnavailable(reason: "no content is attached"))) {
            _ = try store.reconcileAnchors(reanchor: true)
        }
    }

    @Test func reattachAnchorsAnOrphanByHandAsALoggedChange() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(
            directory, source: makeSource([("d", [("d.1", "A fost odată"), ("d.2", "ca niciodată")])]))
        let made = try store.createAnnotation(.note, at: AnchorRequest(passage: "d.2"), note: "keep me")
        let edition2 = makeSource(edition: "test-2", [("d", [("d.1", "A fost odată"), ("d.3", "ca nicicând")])])
        try ContentBuilder.build(edition2, output: directory.path("e2.db"))
        try store.attachContent(path: directory.path("e2.db"))
        #expect(try store.checkAnchors([made]).first?.status == .orphaned)
        let reattached = try store.reattachAnnotation(
            id: made.id, at: AnchorRequest(passage: "d.3", quote: "nicicând"))
        #expect(reattached.anchor.quote == "nicicând" && reattached.note == "keep me"
            && reattached.anchor.edition == "test-2")
        #expect(try store.history(id: made.id).map(\.operation) == [.create, .reattach])
        #expect(try store.checkAnchors([reattached]).first?.status == .intact)
    }

    private func passagesBetween(_ first: String, _ last: String, in store: AnnotationStore) throws -> [Passage] {
        let start = try #require(try store.passage(id: first))
        let end = try #require(try store.passage(id: last))
        return try store.passages(document: start.document).filter { $0.order >= start.order && $0.order <= end.order }
    }
}

/// Edit distance, for checking matches independently of the matcher.
func levenshtein(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
