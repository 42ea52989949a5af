import Foundation
import Marginalia

/// The cost of a sync round through a shared folder: a round with nothing new against opening the store (both
/// interleaved, run by run), and the size of the segment one new note writes.
struct SyncBenchmarks {
    let workspace: Workspace
    let options: BenchOptions
    let report: Report

    /// On a copy of `store` (with `annotations` annotations) that has published its whole log to a folder where
    /// a second device has written one segment.
    func run(store: String, annotations: Int, maker: AnnotationMaker, content: String,
             using random: inout SeededGenerator) throws {
        Log.say("Sync rounds…")
        let copy = workspace.run("sync.db")
        try workspace.copyStore(store, to: copy)
        let folder = workspace.run("sync-folder")
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // Another device's segment, so that a round lists and skips two directories.
        let other = try AnnotationStore.open(path: workspace.run("sync-other.db"), access: .create)
        try other.attachContent(path: content)
        let request = maker.request(using: &random)
        try other.createAnnotation(request.kind, at: request.anchor, note: "from the other device")
        _ = try other.sync(folder: folder)
        try other.close()

        let (first, firstSeconds) = try Timing.time {
            let store = try AnnotationStore.open(path: copy, access: .readWrite)
            defer { try? store.close() }
            return try store.sync(folder: folder)
        }
        report.extra("sync.firstRound.seconds", firstSeconds)
        report.extra("sync.firstRound.segmentBytes", first.written?.bytes ?? 0)
        report.extra("sync.firstRound.changes", first.written?.changes ?? 0)

        // Interleaved: opening and closing the store, against opening it, a round with nothing new, closing.
        func open() throws -> Double {
            try Timing.time {
                let store = try AnnotationStore.open(path: copy, access: .readWrite)
                try store.close()
            }.1
        }
        func round() throws -> Double {
            let (result, seconds) = try Timing.time {
                let store = try AnnotationStore.open(path: copy, access: .readWrite)
                defer { try? store.close() }
                return try store.sync(folder: folder)
            }
            guard result.written == nil, result.changesApplied == 0 else {
                throw BenchError("a sync round with nothing new wrote or applied changes")
            }
            return seconds
        }
        let (opens, rounds) = try Timing.interleaved(pairs: options.quick ? 11 : 41, open, round)
        let openMedian = Timing.percentile(opens, 50)
        let roundMedian = Timing.percentile(rounds, 50)
        report.add(Measurement(
            id: "sync.noop", name: "sync round with nothing new (\(Report.grouped(Double(annotations))) annotations)",
            figure: Quantity(value: roundMedian * 1000, unit: "ms"), seconds: roundMedian,
            referenceName: "opening and closing the store", reference: Quantity(value: openMedian * 1000, unit: "ms"),
            referenceSeconds: openMedian, target: .timeRatioAtMost(3)))

        // One new note: the segment it writes.
        let store = try AnnotationStore.open(path: copy, access: .readWrite)
        defer { try? store.close() }
        try store.attachContent(path: content)
        let note = maker.request(using: &random)
        try store.createAnnotation(.note, at: note.anchor, note: "o notă nouă, scrisă o singură dată")
        let written = try store.sync(folder: folder).written
        guard let written, written.changes == 1 else {
            throw BenchError("one new note wrote \(written?.changes ?? 0) changes to the folder")
        }
        report.add(Measurement(
            id: "sync.oneNote", name: "segment written for one new note",
            figure: Quantity(value: Double(written.bytes), unit: "bytes"), target: .below(8 * 1024)))
    }
}
