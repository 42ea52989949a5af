import Foundation
import Testing
@testable import Marginalia
import MarginaliaTestSupport

/// The async calls: off the caller's thread, with their own progress, stopped by the task's cancellation.
@Suite struct AsyncAPITests {
    let source = makeSource([
        ("luceafarul", [("luceafarul.1", "A fost odată ca-n poveşti,"), ("luceafarul.2", "A fost ca niciodată,")]),
    ])

    /// An archive of `count` bookmarks made on a store of its own.
    func archive(_ directory: TemporaryDirectory, count: Int) throws -> String {
        try Self.bookmarkArchive(directory, count: count, source: source)
    }

    /// An archive of `count` bookmarks on passage `luceafarul.1` of `source`, made on a store of its own.
    static func bookmarkArchive(_ directory: TemporaryDirectory, count: Int, source: ContentSource) throws
        -> String
    {
        // Made once per test process for each count and source, and copied: the laptop's store and its archive.
        let made = try BuiltOnce.shared.value(for: "bookmarks-\(count)-\(String(describing: source))") { shared in
            let scratch = try TemporaryDirectory()
            let laptop = try makeStore(scratch, source: source, name: "laptop.db")
            try laptop.batch {
                for _ in 0..<count {
                    try laptop.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.1"))
                }
            }
            try laptop.exportArchive(toFile: "\(shared)/laptop.jsonl.gz")
            try laptop.close()
            try FileManager.default.copyItem(atPath: scratch.path("laptop.db"), toPath: "\(shared)/laptop.db")
            return shared
        }
        for name in ["laptop.db", "laptop.jsonl.gz"] {
            try FileManager.default.copyItem(atPath: "\(made)/\(name)", toPath: directory.path(name))
        }
        return directory.path("laptop.jsonl.gz")
    }

    /// What a progress handler saw: each report and the name of the thread it ran on (the import's own threads
    /// report too).
    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [(ProgressReport, String?)] = []
        func add(_ report: ProgressReport) { lock.withLock { items.append((report, Thread.current.name)) } }
        var all: [(ProgressReport, String?)] { lock.withLock { items } }
    }

    @Test func anAsyncImportReportsItsOwnProgress() async throws {
        let directory = try TemporaryDirectory()
        let path = try archive(directory, count: 2500)
        let store = try makeStore(directory, source: source, name: "phone.db")
        let storeWide = Seen()
        store.progressHandler = { storeWide.add($0); return .proceed }
        let seen = Seen()
        let report = try await store.importArchive(path: path) { report in
            seen.add(report)
            return .proceed
        }
        #expect(report.newChanges == 2500)
        #expect(seen.all.contains { $0.0.task == "reading archive" && $0.0.done == 2000 }, "\(seen.all.map(\.0))")
        #expect(seen.all.contains { $0.0.task == "projecting changes" })
        #expect(storeWide.all.isEmpty, "the call's own handler replaces the store-wide one")
        // The same file through the blocking call gives the same report.
        let other = try makeStore(directory, source: source, name: "tablet.db")
        #expect(try Self.blockingImport(other, path).merge == report.merge)
    }

    /// The blocking call, from a synchronous context.
    static func blockingImport(_ store: AnnotationStore, _ path: String) throws -> ImportReport {
        try store.importArchive(path: path)
    }

    @Test func cancellingTheAwaitingTaskRollsTheImportBackWhole() async throws {
        let directory = try TemporaryDirectory()
        let path = try archive(directory, count: 3000)
        let store = try makeStore(directory, source: source, name: "phone.db")
        try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.2"), note: "mine")
        let before = try canonicalDump(directory.path("phone.db"))
        let started = AsyncStream<Void>.makeStream()
        let cancelled = DispatchSemaphore(value: 0)
        let task = Task {
            try await store.importArchive(path: path) { report in
                // The first progress point waits until the task is cancelled: the import is then under way.
                if report.done == 1000 && report.task == "reading archive" {
                    started.continuation.yield()
                    cancelled.wait()
                }
                return .proceed
            }
        }
        for await _ in started.stream { break }
        task.cancel()
        cancelled.signal()
        await #expect(throws: MarginaliaError.cancelled) { try await task.value }
        #expect(try canonicalDump(directory.path("phone.db")) == before)
        #expect(try await store.importArchive(path: path).newChanges == 3000)
    }

    @Test func aTaskCancelledBeforeTheCallWritesNothing() async throws {
        let directory = try TemporaryDirectory()
        let path = try archive(directory, count: 10)
        let store = try makeStore(directory, source: source, name: "phone.db")
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await store.importArchive(path: path)
        }
        await #expect(throws: MarginaliaError.cancelled) { try await task.value }
        #expect(try store.changeCount() == 0)
    }

    @Test func asyncReadsAndExportsGiveWhatTheBlockingCallsGive() async throws {
        let directory = try TemporaryDirectory()
        let path = try archive(directory, count: 20)
        let store = try makeStore(directory, source: source, name: "phone.db")
        _ = try await store.importArchive(path: path)
        #expect(try await store.annotations(matching: AnnotationFilter(), progress: nil) == store.annotations())
        #expect(try await store.verify(progress: nil).isHealthy)
        let target = directory.path("again.jsonl.gz")
        #expect(try await store.exportArchive(toFile: target).changes == 20)
        #expect(try await store.backup(to: directory.path("backup.jsonl.gz")).counts.changes == 20)
        let restored = try await AnnotationStore.restore(archive: target, to: directory.path("restored.db"))
        #expect(restored.verification.summary.counts.changes == 20)
    }
}

/// An import reads, checks and stages its file without the store's writer: a write made meanwhile does not wait
/// for it (the app's timeline: the UI never waits for a background import).
@Suite struct ImportBesideWritesTests {
    let source = makeSource([("luceafarul", [("luceafarul.1", "A fost odată ca-n poveşti,")])])

    @Test func aWriteMadeWhileAnImportStagesItsFileDoesNotWaitForIt() throws {
        let directory = try TemporaryDirectory()
        let archive = try AsyncAPITests.bookmarkArchive(directory, count: 3000, source: source)
        let store = try makeStore(directory, source: source, name: "phone.db")
        let written = WriteDuringWork()
        // While the file is being read: a write from another thread, as the UI's would be, must finish now.
        store.progressHandler = written.handler(at: "reading archive", done: 1000) {
            try store.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.1")).id
        }
        let report = try store.importArchive(path: archive)
        written.settle()
        #expect(written.finishedInTime, "the write waited for the import")
        #expect(report.newChanges == 3000)
        #expect(written.madeID != nil)
        #expect(try store.annotations().count == 3001)
        #expect(try store.verify().isHealthy)
    }

    /// A dry run imports into a private copy of the store: the store's writer is never taken, and what it reports
    /// is what the import then does.
    @Test func aDryRunNeverTakesTheWriter() throws {
        let directory = try TemporaryDirectory()
        let archive = try AsyncAPITests.bookmarkArchive(directory, count: 3000, source: source)
        let store = try makeStore(directory, source: source, name: "phone.db")
        try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.1"), note: "mine")
        let written = WriteDuringWork()
        store.progressHandler = written.handler(at: "importing changes", done: nil) {
            try store.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.1")).id
        }
        let preview = try store.importArchive(path: archive, dryRun: true)
        written.settle()
        store.progressHandler = nil
        #expect(written.finishedInTime, "the write waited for the dry run")
        #expect(try store.annotations().count == 2)
        let report = try store.importArchive(path: archive)
        #expect(preview.merge == report.merge && preview.newChanges == 3000)
        let name = store.path.split(separator: "/").last.map(String.init) ?? ""
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path("."))
            .filter { $0.contains(name) && $0.contains("dryrun") } == [])
    }

    /// The merge runs in short steps: a write made between two of them goes in at once, and the import goes on.
    @Test func aWriteMadeWhileAnImportMergesDoesNotWaitForTheWholeMerge() throws {
        let directory = try TemporaryDirectory()
        let archive = try AsyncAPITests.bookmarkArchive(directory, count: 6000, source: source)
        let store = try makeStore(directory, source: source, name: "phone.db")
        try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.1"), note: "mine")
        let written = WriteDuringWork()
        store.progressHandler = written.handler(at: "importing changes", done: nil) {
            try store.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.1")).id
        }
        let report = try store.importArchive(path: archive)
        written.settle()
        #expect(written.finishedInTime, "the write waited for the whole merge")
        #expect(report.newChanges == 6000 && report.changesRead == 6000)
        #expect(try store.annotations().count == 6002)
        #expect(try store.verify().isHealthy)
        #expect(try store.receipts().last?.newChanges == 6000)
    }
}

/// A write made from another thread, as the UI's would be, at one progress point of long work on the same store:
/// whether it finished within 10 s (while the work still runs) and the id it made.
final class WriteDuringWork: @unchecked Sendable {
    private let lock = NSLock()
    private var id: String?
    private var finished = false
    private var started = false
    private let done = DispatchSemaphore(value: 0)

    /// The id the write made, once it finished.
    var madeID: String? { lock.withLock { id } }
    /// Whether the write finished while the work waited for it at its progress point.
    var finishedInTime: Bool { lock.withLock { finished } }

    /// A progress handler that, at the first report of `task` with `done` (any, when nil), runs `write` on another
    /// thread and waits (10 s at most) for it to finish before the work goes on.
    func handler(at task: String, done count: Int?, _ write: @escaping @Sendable () throws -> String)
        -> ProgressHandler
    {
        { [self] report in
            guard report.task == task, count == nil || report.done == count, lock.withLock({ !started }) else {
                return .proceed
            }
            lock.withLock { started = true }
            Thread { [self] in
                let made = try? write()
                lock.withLock { id = made }
                done.signal()
            }.start()
            let inTime = done.wait(timeout: .now() + 10) == .success
            lock.withLock { finished = inTime }
            return .proceed
        }
    }

    /// Waits for the write when it did not finish in time (it finishes once the work lets it).
    func settle() {
        if !finishedInTime { done.wait() }
    }
}
