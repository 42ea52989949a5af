import Foundation
import Testing
@testable import Marginalia

/// `observeAnnotations(matching:)` and `observePosition(document:)`: the value first, then a new value after each
/// commit that changed it, never the same value twice in a row; the stream ends with the store or its consumer.
@Suite struct ValueObservationTests {
    let source = makeSource([
        ("luceafarul", [("luceafarul.1", "A fost odată ca-n poveşti,"), ("luceafarul.2", "A fost ca niciodată,")]),
        ("scrisoarea", [("scrisoarea.1", "Când cu gene ostenite")]),
    ])
    let luceafarul = AnnotationFilter(document: "luceafarul")

    /// Runs `body`, or stops it after `seconds` (a bound on a hang, not a measurement): its waits for values end,
    /// and it fails on what it did not get. The bound is long: in the whole suite on two cores, an awaiting test
    /// waits its turn behind hundreds of others for the same threads.
    static func within(seconds: Double = 300, _ body: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await body()
                return true
            }
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
                return false
            }
            let finished = try await group.next() ?? false
            group.cancelAll()
            #expect(finished, "gave up after \(seconds) s")
        }
    }

    @discardableResult
    static func bookmark(_ store: AnnotationStore, _ passage: String) throws -> Annotation {
        try store.createAnnotation(.bookmark, at: AnchorRequest(passage: passage))
    }

    @Test func theFirstValueIsTheAnnotationsAsTheyAre() async throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        try Self.bookmark(store, "luceafarul.2")
        try Self.bookmark(store, "scrisoarea.1")
        try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.1"), note: "dor")
        let filter = luceafarul
        try await Self.within {
            var values = store.observeAnnotations(matching: filter).makeAsyncIterator()
            let first = try await values.next()
            #expect(first?.map(\.anchor.start.passage) == ["luceafarul.1", "luceafarul.2"])
            #expect(try first == store.annotations(matching: filter))
        }
    }

    @Test func aWriteThatChangesTheListDeliversTheNewList() async throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        let note = try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.1"), note: "dor")
        let filter = AnnotationFilter(passage: "luceafarul.1")
        try await Self.within {
            var values = store.observeAnnotations(matching: filter).makeAsyncIterator()
            #expect(try await values.next() == [note])
            let edited = try store.editAnnotation(id: note.id, note: "dor de ducă")
            #expect(try await values.next() == [edited])
            let added = try Self.bookmark(store, "luceafarul.1")
            #expect(try await values.next() == [edited, added])
            try store.deleteAnnotation(id: note.id)
            #expect(try await values.next() == [added])
        }
    }

    /// A commit that does not change the list delivers nothing: the value after it is the next list that differs.
    /// (Against an observation that reads again after every commit without comparing, this fails only when a
    /// read falls before the matching write; the two tests below hold each half of the rule whatever the timing.)
    @Test func aCommitElsewhereDeliversNothing() async throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        let first = try Self.bookmark(store, "luceafarul.1")
        let filter = luceafarul
        try await Self.within {
            var values = store.observeAnnotations(matching: filter).makeAsyncIterator()
            #expect(try await values.next() == [first])
            let elsewhere = try Self.bookmark(store, "scrisoarea.1")
            try store.editAnnotation(id: elsewhere.id, note: "alt titlu")
            try store.setPosition(document: "luceafarul", at: TextPosition(passage: "luceafarul.2", offset: 3))
            let second = try Self.bookmark(store, "luceafarul.2")
            #expect(try await values.next() == [first, second])
        }
    }

    @Test func aCommitByAnotherStoreOnTheSameFileIsSeen() async throws {
        let directory = try TemporaryDirectory()
        let other = try makeStore(directory, source: source)
        // The app's own store, which learns of the other's commits only by looking at the file.
        let app = try EventDeliveryTests.quickStore(directory)
        let filter = luceafarul
        try await Self.within {
            var values = app.observeAnnotations(matching: filter).makeAsyncIterator()
            #expect(try await values.next() == [])
            let made = try Self.bookmark(other, "luceafarul.2")
            #expect(try await values.next() == [made])
        }
    }

    @Test func closingTheStoreFinishesTheStream() async throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        try await Self.within {
            var values = store.observeAnnotations().makeAsyncIterator()
            #expect(try await values.next() == [])
            try store.close()
            #expect(try await values.next() == nil)
            var after = store.observeAnnotations().makeAsyncIterator()
            #expect(try await after.next() == nil, "a closed store has no value to give")
        }
    }

    @Test func cancellingTheConsumerLeavesTheStoresEvents() async throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        try await Self.within {
            let started = AsyncStream<Void>.makeStream()
            let consumer = Task {
                for try await _ in store.observeAnnotations() { started.continuation.yield() }
            }
            for await _ in started.stream { break }
            #expect(store.engine.observer.streamCount == 1)
            consumer.cancel()
            try await consumer.value
            // The reading task sees the cancellation at its next wait for an event, and lets go of its stream.
            var count = store.engine.observer.streamCount
            for _ in 0..<2000 where count > 0 {
                try await Task.sleep(nanoseconds: 5_000_000)
                count = store.engine.observer.streamCount
            }
            #expect(count == 0, "the observation still holds a stream of events")
        }
    }

    @Test func thePositionOfADocumentIsDeliveredWhenItMoves() async throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        try await Self.within {
            var positions = store.observePosition(document: "luceafarul").makeAsyncIterator()
            #expect(try await positions.next() == .some(nil))
            let set = try store.setPosition(document: "luceafarul",
                                            at: TextPosition(passage: "luceafarul.1", offset: 4))
            #expect(try await positions.next() == set)
            try store.setPosition(document: "scrisoarea", at: TextPosition(passage: "scrisoarea.1", offset: 1))
            try Self.bookmark(store, "luceafarul.1")
            let moved = try store.setPosition(document: "luceafarul",
                                              at: TextPosition(passage: "luceafarul.2", offset: 0))
            #expect(try await positions.next() == moved)
        }
    }

    /// Which commits are read again: those that replaced the log or touched an annotation listed or matching now.
    @Test func aCommitIsReadAgainOnlyWhenItMayChangeTheList() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        let listed = try Self.bookmark(store, "luceafarul.1")
        // Listed, then deleted: it matches the filter no more, and the list must lose it.
        let leaving = try Self.bookmark(store, "luceafarul.1")
        try store.deleteAnnotation(id: leaving.id)
        let elsewhere = try Self.bookmark(store, "scrisoarea.1")
        let joining = try Self.bookmark(store, "luceafarul.2")
        let cursor = try store.cursor()
        func event(_ ids: Set<String>, positions: Set<String> = [], replaced: Bool = false) -> StoreEvent {
            StoreEvent(cursor: cursor, annotationIDs: ids, positionDocuments: positions, logReplaced: replaced)
        }
        let filter = luceafarul
        let decisions = try store.engine.read { connection in
            try [
                event([leaving.id]), event([elsewhere.id]), event([joining.id]), event([elsewhere.id, joining.id]),
                event([], positions: ["luceafarul"]), event([], replaced: true),
            ].map {
                try AnnotationStore.annotationsMayChange(after: $0, [listed, leaving], matching: filter, connection)
            }
        }
        #expect(decisions == [true, false, true, true, false, true])
    }

    /// A value read again after a commit and found equal to the last one is not delivered again.
    @Test func anEqualValueIsNotDeliveredTwice() async throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        // Read again after every commit, whatever it touched; each read is announced once it is done.
        let reads = AsyncStream<Void>.makeStream()
        let count = StoreValueObservation<Int>(
            fetch: { connection in
                defer { reads.continuation.yield() }
                return try connection.annotations(matching: AnnotationFilter(document: "luceafarul")).count
            },
            mayChange: { _, _, _ in true }
        )
        try await Self.within {
            var read = reads.stream.makeAsyncIterator()
            var values = count.values(in: store).makeAsyncIterator()
            #expect(try await values.next() == 0)
            await read.next()
            try Self.bookmark(store, "scrisoarea.1")
            // The commit elsewhere has been read again (and found to leave the count at 0) before the next write.
            await read.next()
            try Self.bookmark(store, "luceafarul.1")
            #expect(try await values.next() == 1)
        }
    }
}
