import Foundation
import Marginalia

/// The UI's writes and reads while a background task imports an archive into the same shared store: an app's
/// timeline. The UI writes a bookmark and reads one passage's annotations every 20 ms; each call's latency is
/// measured, with the import running and, as the reference, without it.
struct TimelineBenchmarks {
    let workspace: Workspace
    let report: Report

    /// The latencies (milliseconds) of the UI's writes and reads, every 20 ms, while `busy` is true.
    private static func uiLoop(_ store: AnnotationStore, passage: String, while busy: () -> Bool,
                               atLeast rounds: Int) throws -> (writes: [Double], reads: [Double]) {
        var writes: [Double] = []
        var reads: [Double] = []
        while busy() || writes.count < rounds {
            let started = DispatchTime.now().uptimeNanoseconds
            try store.createAnnotation(.bookmark, at: AnchorRequest(passage: passage))
            let written = DispatchTime.now().uptimeNanoseconds
            _ = try store.annotations(matching: AnnotationFilter(passage: passage))
            let read = DispatchTime.now().uptimeNanoseconds
            writes.append(Double(written - started) / 1e6)
            reads.append(Double(read - written) / 1e6)
            usleep(20_000)
        }
        return (writes, reads)
    }

    /// Imports `archive` into a new store on a thread of its own while the UI loop runs on this one.
    func run(archive: String, content: String) throws {
        Log.say("UI writes and reads during an import…")
        let path = workspace.run("timeline.db")
        workspace.remove(path)
        let store = try AnnotationStore.open(path: path, access: .create)
        defer { try? store.close() }
        try store.attachContent(path: content)
        guard let document = try store.documents().first,
              let passage = try store.passages(document: document.id).first?.id else { return }
        let quiet = try Self.uiLoop(store, passage: passage, while: { false }, atLeast: 50)
        let importing = ImportThread(store: store, archive: archive)
        importing.start()
        let busy = try Self.uiLoop(store, passage: passage, while: { importing.isRunning }, atLeast: 10)
        let seconds = try importing.result()
        report.extra("timeline.importSeconds", seconds)
        report.extra("timeline.uiCalls", busy.writes.count)
        func add(_ id: String, _ name: String, _ figures: [Double], _ references: [Double], _ p: Double,
                 below bound: Double) {
            let figure = p == 100 ? (figures.max() ?? .nan) : Timing.percentile(figures, p)
            let reference = p == 100 ? (references.max() ?? .nan) : Timing.percentile(references, p)
            report.add(Measurement(
                id: "timeline.\(id)", name: name, figure: Quantity(value: figure, unit: "ms"), seconds: figure / 1000,
                referenceName: "the same call, no import running", reference: Quantity(value: reference, unit: "ms"),
                referenceSeconds: reference / 1000, target: .below(bound)))
        }
        add("writeP99", "UI write p99 during an import", busy.writes, quiet.writes, 99, below: 50)
        add("writeMax", "UI write, slowest, during an import", busy.writes, quiet.writes, 100, below: 250)
        add("readP99", "UI read p99 during an import", busy.reads, quiet.reads, 99, below: 20)
    }
}

/// An import on a thread of its own: whether it still runs, and its time or error once done.
private final class ImportThread: @unchecked Sendable {
    private let store: AnnotationStore
    private let archive: String
    private let lock = NSLock()
    private var outcome: Result<Double, any Error>?
    private let done = DispatchSemaphore(value: 0)

    init(store: AnnotationStore, archive: String) {
        self.store = store
        self.archive = archive
    }

    func start() {
        Thread {
            let started = DispatchTime.now().uptimeNanoseconds
            let result = Result { () throws -> Double in
                _ = try self.store.importArchive(path: self.archive)
                return Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            }
            self.lock.withLock { self.outcome = result }
            self.done.signal()
        }.start()
    }

    var isRunning: Bool { lock.withLock { outcome == nil } }

    /// Waits for the import; its seconds, or its error.
    func result() throws -> Double {
        done.wait()
        return try lock.withLock { outcome! }.get()
    }
}
