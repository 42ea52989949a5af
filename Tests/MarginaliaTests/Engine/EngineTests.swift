import Foundation
import Testing
@testable import Marginalia

/// The store shared across tasks: writes serialized, reads alongside them, every commit announced.
@Suite struct EngineTests {
    let source = makeSource([
        ("luceafarul", [
            ("luceafarul.1", "A fost odată ca-n poveşti,"),
            ("luceafarul.2", "A fost ca niciodată,"),
        ]),
    ])

    /// Waits for events until `done` says enough arrived, or gives up after `seconds` (a bound on a hang, not a
    /// measurement: the test asserts on what arrived, not on when).
    static func collect(_ events: AsyncStream<StoreEvent>, seconds: Double,
                        until done: @escaping @Sendable ([StoreEvent]) -> Bool) async -> [StoreEvent] {
        await withTaskGroup(of: [StoreEvent].self) { group in
            group.addTask {
                var seen: [StoreEvent] = []
                for await event in events {
                    seen.append(event)
                    if done(seen) { break }
                }
                return seen
            }
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
                return []
            }
            let first = await group.next() ?? []
            group.cancelAll()
            return first
        }
    }

    @Test func fourWritingTasksAndFourReadingTasksShareOneStoreAndEveryWriteIsAnnounced() async throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        let events = store.events()
        let made = try await withThrowingTaskGroup(of: [String].self) { group in
            for task in 0..<4 {
                group.addTask {
                    var ids: [String] = []
                    for index in 0..<100 {
                        let passage = "luceafarul.\(1 + (task + index) % 2)"
                        ids.append(try store.createAnnotation(.bookmark, at: AnchorRequest(passage: passage)).id)
                    }
                    return ids
                }
            }
            for _ in 0..<4 {
                group.addTask {
                    var counts: [Int] = []
                    for _ in 0..<50 { counts.append(try store.annotations().count) }
                    // Each read sees a whole number of commits, never fewer than the one before.
                    #expect(counts == counts.sorted())
                    return []
                }
            }
            var all: [String] = []
            for try await ids in group { all += ids }
            return all
        }
        #expect(made.count == 400 && Set(made).count == 400)
        #expect(try store.annotations().count == 400)
        #expect(try store.verify().isHealthy)
        let announced = await Self.collect(events, seconds: 30) { seen in
            seen.reduce(into: Set<String>()) { $0.formUnion($1.annotationIDs) }.count >= 400
        }
        #expect(announced.reduce(into: Set<String>()) { $0.formUnion($1.annotationIDs) } == Set(made))
        // Cursors only move forward, and the last is the store's.
        #expect(announced.map(\.cursor.sequence) == announced.map(\.cursor.sequence).sorted())
        #expect(announced.last?.cursor == (try store.cursor()))
    }

    @Test func aCommitByAnotherConnectionIsAnnouncedAndNamesWhatItTouched() async throws {
        let directory = try TemporaryDirectory()
        let app = try makeStore(directory, source: source)
        let events = app.events()
        // Another process would do the same through its own connection: the store learns of it by data_version.
        let other = try makeStore(directory, source: source)
        let bookmark = try other.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.2"))
        try other.setPosition(document: "luceafarul", at: TextPosition(passage: "luceafarul.1", offset: 2))
        let seen = await Self.collect(events, seconds: 30) { seen in
            seen.contains { $0.positionDocuments.contains("luceafarul") }
        }
        #expect(seen.flatMap(\.annotationIDs) == [bookmark.id])
        #expect(seen.flatMap(\.positionDocuments) == ["luceafarul"])
        #expect(seen.allSatisfy { !$0.logReplaced })
    }

    @Test func aClosedStoreThrowsClosedAndItsEventsFinish() async throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        let events = store.events()
        try store.close()
        try store.close()
        #expect(throws: MarginaliaError.closed) { try store.annotations() }
        #expect(throws: MarginaliaError.closed) {
            try store.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.1"))
        }
        var count = 0
        for await _ in events { count += 1 }
        #expect(count == 0)
        var after = 0
        for await _ in store.events() { after += 1 }
        #expect(after == 0)
    }

    @Test func aProgressHandlerThatAsksToStopRollsTheImportBackWhole() throws {
        let directory = try TemporaryDirectory()
        let laptop = try makeStore(directory, source: source, name: "laptop.db")
        try laptop.batch {
            for _ in 0..<2500 { try laptop.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.1")) }
        }
        let archive = directory.path("laptop.jsonl.gz")
        try laptop.exportArchive(toFile: archive)
        let phone = try makeStore(directory, source: source, name: "phone.db")
        try phone.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.2"), note: "mine")
        let before = try canonicalDump(directory.path("phone.db"))
        phone.progressHandler = { report in report.done >= 2000 ? .stop : .proceed }
        #expect(throws: MarginaliaError.cancelled) { try phone.importArchive(path: archive) }
        #expect(try canonicalDump(directory.path("phone.db")) == before)
        phone.progressHandler = nil
        #expect(try phone.importArchive(path: archive).newChanges == 2500)
    }

    @Test func aCancelledTaskStopsAnExportAndLeavesNoFile() async throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        try store.batch {
            for _ in 0..<3000 { try store.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.1")) }
        }
        let target = directory.path("export.jsonl.gz")
        let task = Task {
            // Cancelled before it starts: the export sees the cancellation at its first progress point.
            withUnsafeCurrentTask { $0?.cancel() }
            return try store.exportArchive(toFile: target)
        }
        await #expect(throws: MarginaliaError.cancelled) { try await task.value }
        #expect(!FileManager.default.fileExists(atPath: target))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
            .filter { $0.hasSuffix(".tmp") }
        #expect(leftovers == [])
    }
}
