import Foundation
import Testing
@testable import Marginalia

/// `events()` misses no commit, and watches the file only while a stream is alive.
@Suite struct EventDeliveryTests {
    let source = makeSource([("luceafarul", [("luceafarul.1", "A fost odată ca-n poveşti,")])])

    /// Another connection to the store in `directory` (made, with content, if need be): a process of its own
    /// would write the same way, and the store learns of its commits only by looking at the file.
    func otherWriter(_ directory: TemporaryDirectory) throws -> AnnotationStore {
        try makeStore(directory, source: source)
    }

    /// The app's store, polling the file often, so that 200 rounds take seconds, not minutes.
    static func quickStore(_ directory: TemporaryDirectory) throws -> AnnotationStore {
        var configuration = AnnotationStore.Configuration()
        configuration.eventPollInterval = .milliseconds(2)
        return try AnnotationStore.open(path: directory.path("user.db"), access: .readWrite,
                                        configuration: configuration)
    }

    func bookmark(_ store: AnnotationStore) throws -> String {
        try store.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.1")).id
    }

    @Test func aCommitByAnotherConnectionRightAfterSubscribingIsAnnouncedEveryTime() async throws {
        let directory = try TemporaryDirectory()
        let other = try otherWriter(directory)
        var missed: [Int] = []
        for round in 0..<200 {
            // A store just opened, as an app at launch: its watcher starts with this stream.
            let app = try Self.quickStore(directory)
            defer { try? app.close() }
            let events = app.events()
            // At once: before the store's watcher has looked at the file even once.
            let id = try bookmark(other)
            let seen = await EngineTests.collect(events, seconds: 20) { seen in
                seen.contains { $0.annotationIDs.contains(id) }
            }
            if !seen.contains(where: { $0.annotationIDs.contains(id) }) { missed.append(round) }
        }
        #expect(missed == [], "rounds whose commit was never announced: \(missed)")
    }

    @Test func twoStreamsEachHearOfEveryCommitAfterTheirOwnStart() async throws {
        let directory = try TemporaryDirectory()
        let other = try otherWriter(directory)
        let app = try Self.quickStore(directory)
        let first = app.events()
        let a = try bookmark(other)
        let second = app.events()
        let b = try bookmark(other)
        let heardByFirst = await EngineTests.collect(first, seconds: 20) { seen in
            Set(seen.flatMap(\.annotationIDs)).isSuperset(of: [a, b])
        }
        let heardBySecond = await EngineTests.collect(second, seconds: 20) { seen in
            seen.flatMap(\.annotationIDs).contains(b)
        }
        #expect(Set(heardByFirst.flatMap(\.annotationIDs)) == [a, b])
        #expect(heardBySecond.flatMap(\.annotationIDs).contains(b))
    }

    @Test func theWatcherRunsOnlyWhileAStreamIsAlive() async throws {
        let directory = try TemporaryDirectory()
        let other = try otherWriter(directory)
        let app = try Self.quickStore(directory)
        #expect(!app.engine.observer.isWatching, "nothing is watched before a stream")
        do {
            let events = app.events()
            #expect(app.engine.observer.isWatching)
            _ = try bookmark(other)
            let seen = await EngineTests.collect(events, seconds: 20) { !$0.isEmpty }
            #expect(!seen.isEmpty)
        }
        // The stream is gone; the watcher sees that at its next look and ends.
        var watching = app.engine.observer.isWatching
        for _ in 0..<2000 where watching {
            try await Task.sleep(nanoseconds: 5_000_000)
            watching = app.engine.observer.isWatching
        }
        #expect(!watching, "a watcher still polls the file with no stream alive")
        // A new stream starts a new watcher, which hears of the next commit.
        let again = app.events()
        let id = try bookmark(other)
        let heard = await EngineTests.collect(again, seconds: 20) { $0.contains { $0.annotationIDs.contains(id) } }
        #expect(heard.contains { $0.annotationIDs.contains(id) })
    }
}
