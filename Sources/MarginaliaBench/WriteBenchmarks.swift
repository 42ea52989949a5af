import Foundation
import Marginalia

/// Creating annotations through the library, against the same rows written through the C API, and anchor
/// reconciliation after a content swap.
struct WriteBenchmarks {
    let workspace: Workspace
    let report: Report

    /// Many annotations in one transaction: the store builder's three create batches, against each batch's rows
    /// inserted through the C API in one transaction into a copy of the store from just before the batch (the
    /// floor, with the target), and against all their rows inserted into an empty store in one transaction (the
    /// floor the benchmark used before, shown for comparison: an empty notes index and shallow B-trees are
    /// cheaper to write than the store's own).
    func batchCreate(_ built: StoreBuilder.Result) throws {
        let count = Double(built.createdCount)
        let figure = Quantity(value: count / built.createSeconds, unit: "annotations/s")
        report.add(Measurement(
            id: "create.batch", name: "batch create (\(built.createdCount) in 3 transactions)",
            figure: figure, seconds: built.createSeconds,
            referenceName: "same INSERTs, C API, same stores",
            reference: Quantity(value: count / built.createFloorSeconds, unit: "annotations/s"),
            referenceSeconds: built.createFloorSeconds, target: .timeRatioAtMost(2)))
        Log.say("Batch create: the C-API floor into an empty store…")
        let floorStore = workspace.run("floor.db")
        _ = try AnnotationStore.open(path: floorStore, access: .create)
        let floorSeconds = try CFloor.insertCreates(built.createdRows, into: floorStore,
                                                    transactionPerAnnotation: false)
        report.add(Measurement(
            id: "create.batch.emptyStore", name: "batch create, against an empty store",
            figure: figure, seconds: built.createSeconds,
            referenceName: "same INSERTs, C API, one transaction, empty store",
            reference: Quantity(value: count / floorSeconds, unit: "annotations/s"), referenceSeconds: floorSeconds))
    }

    /// One annotation per transaction with synchronous=FULL: commits per second, against the same two INSERTs
    /// committed one annotation at a time through the C API.
    func singleTransactions(_ count: Int, maker: AnnotationMaker, content: String,
                            using random: inout SeededGenerator) throws {
        Log.say("One annotation per transaction…")
        let path = workspace.run("single.db")
        let store = try AnnotationStore.open(path: path, access: .create)
        try store.attachContent(path: content)
        let requests = (0..<count).map { _ in maker.request(using: &random) }
        let marks = try CreatedRows.marks(store: path)
        let (_, seconds) = try Timing.time {
            for request in requests {
                try store.createAnnotation(request.kind, at: request.anchor, note: request.note, color: request.color,
                                           tags: request.tags)
            }
        }
        var rows = CreatedRows()
        try rows.append(store: path, after: marks)
        let floorStore = workspace.run("single-floor.db")
        _ = try AnnotationStore.open(path: floorStore, access: .create)
        let floorSeconds = try CFloor.insertCreates(rows, into: floorStore, transactionPerAnnotation: true)
        report.add(Measurement(
            id: "create.perTransaction", name: "one annotation per transaction (synchronous=FULL)",
            figure: Quantity(value: Double(count) / seconds, unit: "commits/s"), seconds: seconds,
            referenceName: "same INSERTs, C API, one commit each",
            reference: Quantity(value: Double(count) / floorSeconds, unit: "commits/s"),
            referenceSeconds: floorSeconds))
    }

    /// Every annotation checked against edition 2 and the moved ones re-anchored (one transaction), against
    /// the check alone.
    func reconcile(store: String, edition2: String) throws {
        Log.say("Anchor reconciliation…")
        let copy = workspace.run("reconcile.db")
        try workspace.copyStore(store, to: copy)
        let target = try AnnotationStore.open(path: copy, access: .readWrite)
        try target.attachContent(path: edition2)
        let (listed, listSeconds) = try Timing.time {
            try target.annotations(matching: AnnotationFilter(includeDeleted: true)).count
        }
        let (checked, checkSeconds) = try Timing.time { try target.reconcileAnchors(reanchor: false) }
        let (done, seconds) = try Timing.time { try target.reconcileAnchors(reanchor: true) }
        guard done.total == listed, checked.total == listed else {
            throw BenchError("reconciliation accounted for \(done.total) of \(listed) annotations")
        }
        report.extra("reconcile.intact", done.intact)
        report.extra("reconcile.moved", done.moved)
        report.extra("reconcile.orphaned", done.orphaned)
        report.extra("reconcile.reanchored", done.reanchored)
        report.extra("reconcile.listSeconds", listSeconds)
        let rate = { (seconds: Double) in Quantity(value: Double(listed) / seconds, unit: "annotations/s") }
        report.add(Measurement(
            id: "reconcile.reanchor", name: "reconcile \(listed) anchors after a content swap (re-anchor)",
            figure: rate(seconds), seconds: seconds, referenceName: "the same check without writing",
            reference: rate(checkSeconds), referenceSeconds: checkSeconds))
        report.add(Measurement(
            id: "reconcile.check", name: "check \(listed) anchors after a content swap", figure: rate(checkSeconds),
            seconds: checkSeconds, referenceName: "listing them (same query, no check)", reference: rate(listSeconds),
            referenceSeconds: listSeconds))
        Log.say("  intact \(done.intact), moved \(done.moved), orphaned \(done.orphaned)")
    }
}
