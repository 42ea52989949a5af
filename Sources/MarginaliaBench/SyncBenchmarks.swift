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

extension SyncBenchmarks {
    /// A late joiner: a new store catching up from a folder where four devices have each published a quarter of
    /// `changes` changes, against a new store importing the same changes from one archive. Each through the
    /// `marginalia` binary when there is one beside this one (time and peak memory), else in this process.
    func lateJoiner(changes: Int, maker: AnnotationMaker, content: String, using random: inout SeededGenerator)
        throws
    {
        Log.say("A late joiner catching up from \(changes) changes of 4 devices…")
        let folder = workspace.run("joiner-folder")
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for device in 0..<4 {
            let path = workspace.run("joiner-device-\(device).db")
            workspace.remove(path)
            let store = try AnnotationStore.open(path: path, access: .create)
            try store.attachContent(path: content)
            try store.batch {
                for index in 0..<(changes / 4) {
                    let request = maker.request(using: &random)
                    try store.createAnnotation(request.kind, at: request.anchor, note: "notă \(device)-\(index)")
                }
            }
            _ = try store.sync(folder: folder)
            try store.close()
            workspace.remove(path)
        }
        let joiner = workspace.run("joiner.db")
        let archive = workspace.run("joiner.jsonl.gz")
        let imported = workspace.run("joiner-imported.db")
        for path in [joiner, archive, imported] { workspace.remove(path) }
        let (syncSeconds, syncMiB) = try timed(["sync", folder], store: joiner) {
            let store = try AnnotationStore.open(path: joiner, access: .create)
            defer { try? store.close() }
            let report = try store.sync(folder: folder)
            guard report.changesApplied == changes / 4 * 4 else {
                throw BenchError("the late joiner applied \(report.changesApplied) changes")
            }
        }
        let source = try AnnotationStore.open(path: joiner, access: .readWrite)
        _ = try source.exportArchive(toFile: archive)
        try source.close()
        let (importSeconds, importMiB) = try timed(["import", archive], store: imported) {
            let store = try AnnotationStore.open(path: imported, access: .create)
            defer { try? store.close() }
            _ = try store.importArchive(path: archive)
        }
        let count = Report.grouped(Double(changes / 4 * 4))
        report.add(Measurement(
            id: "sync.lateJoiner", name: "a new store catching up from a folder of 4 devices (\(count) changes)",
            figure: Quantity(value: syncSeconds, unit: "s"), seconds: syncSeconds,
            referenceName: "importing the same changes from one archive",
            reference: Quantity(value: importSeconds, unit: "s"), referenceSeconds: importSeconds,
            target: .timeRatioAtMost(2)))
        if let syncMiB, let importMiB {
            report.add(Measurement(
                id: "memory.sync.lateJoiner", name: "peak memory, marginalia sync of a late joiner (\(count) changes)",
                figure: Quantity(value: syncMiB, unit: "MiB"), seconds: syncSeconds, target: .below(64)))
            report.extra("memory.import.lateJoinerMiB", importMiB)
        }
        for path in [joiner, archive, imported] { workspace.remove(path) }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Runs `marginalia --store STORE ARGUMENTS` when the binary is there (seconds and peak MiB), else `body` in
    /// this process (seconds only).
    private func timed(_ arguments: [String], store: String, _ body: () throws -> Void) throws -> (Double, Double?) {
        if let cli = workspace.cli {
            let run = try Subprocess.run([cli, "--store", store] + arguments, underTime: true)
            return (run.seconds, run.peakMiB)
        }
        return (try Timing.time(body).1, nil)
    }
}
