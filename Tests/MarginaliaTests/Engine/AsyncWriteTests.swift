import Foundation
import Testing
@testable import Marginalia

/// The async single writes: what the blocking calls do and throw, without holding the caller's actor while the
/// writer is busy.
@Suite struct AsyncWriteTests {
    let source = makeSource([
        ("luceafarul", [("luceafarul.1", "A fost odată ca-n poveşti,"), ("luceafarul.2", "A fost ca niciodată,")]),
    ])

    @Test func eachAsyncWriteDoesWhatItsBlockingCallDoes() async throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        let made = try await store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.1"), note: "dor",
                                                    color: "yellow", tags: ["vis"], progress: nil)
        #expect(made.note == "dor" && made.color == "yellow" && made.tags == ["vis"])
        #expect(try store.annotation(id: made.id) == made)
        let edited = try await store.editAnnotation(id: made.id, note: "dor de ducă", addTags: ["mare"],
                                                    removeTags: ["vis"], progress: nil)
        #expect(edited.note == "dor de ducă" && edited.tags == ["mare"])
        let deleted = try await store.deleteAnnotation(id: made.id, progress: nil)
        #expect(deleted.deleted)
        let back = try await store.undeleteAnnotation(id: made.id, progress: nil)
        #expect(!back.deleted && back.note == "dor de ducă")
        let moved = try await store.reattachAnnotation(id: made.id, at: AnchorRequest(passage: "luceafarul.2"),
                                                       progress: nil)
        #expect(moved.anchor.start.passage == "luceafarul.2")
        let created = try store.history(id: made.id)[0]
        let reverted = try await store.revertAnnotation(id: made.id, to: created.id, progress: nil)
        #expect(reverted.annotation.note == "dor" && reverted.annotation.tags == ["vis"])
        #expect(reverted.annotation.anchor == made.anchor)
        let position = try await store.setPosition(document: "luceafarul",
                                                   at: TextPosition(passage: "luceafarul.2", offset: 5), progress: nil)
        #expect(try store.position(document: "luceafarul") == position)
        #expect(try store.changeCount() == 7)
        #expect(try store.verify().isHealthy)
    }

    /// The error of the blocking call, or nil when it did not throw.
    static func error(_ body: () throws -> Void) -> MarginaliaError? {
        do {
            try body()
            return nil
        } catch {
            return error as? MarginaliaError
        }
    }

    /// The error of the async call, or nil when it did not throw.
    static func error(_ body: () async throws -> Void) async -> MarginaliaError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? MarginaliaError
        }
    }

    @Test func anAsyncWriteThrowsWhatItsBlockingCallThrows() async throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        let live = try store.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.1"))
        let nowhere = AnchorRequest(passage: "NO.SUCH")
        let nowhereInText = TextPosition(passage: "NO.SUCH", offset: 0)
        let cases: [(MarginaliaError?, MarginaliaError?)] = [
            (Self.error { try store.createAnnotation(.bookmark, at: nowhere) },
             await Self.error { try await store.createAnnotation(.bookmark, at: nowhere, progress: nil) }),
            (Self.error { try store.editAnnotation(id: "0000ffff") },
             await Self.error { try await store.editAnnotation(id: "0000ffff", progress: nil) }),
            (Self.error { try store.editAnnotation(id: live.id) },
             await Self.error { try await store.editAnnotation(id: live.id, progress: nil) }),
            (Self.error { try store.undeleteAnnotation(id: live.id) },
             await Self.error { try await store.undeleteAnnotation(id: live.id, progress: nil) }),
            (Self.error { try store.setPosition(document: "luceafarul", at: nowhereInText) },
             await Self.error {
                 try await store.setPosition(document: "luceafarul", at: nowhereInText, progress: nil)
             }),
        ]
        #expect(cases.map(\.1?.category) == [.invalidArgument, .notFound, .invalidArgument, .invalidArgument,
                                             .invalidArgument])
        for (blocking, awaited) in cases {
            #expect(awaited == blocking)
        }
        #expect(try store.changeCount() == 1, "no refused write wrote anything")
        try store.close()
        await #expect(throws: MarginaliaError.closed) { try await store.deleteAnnotation(id: live.id, progress: nil) }
    }

    @Test func aTaskCancelledBeforeTheWriteWritesNothing() async throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await store.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.1"),
                                                    progress: nil)
        }
        await #expect(throws: MarginaliaError.cancelled) { try await task.value }
        #expect(try store.changeCount() == 0)
    }

    /// An actor that writes, as a screen's model does.
    actor Screen {
        let store: AnnotationStore
        init(_ store: AnnotationStore) { self.store = store }

        func bookmark(entered: AsyncStream<Void>.Continuation) async throws -> Annotation {
            entered.yield()
            return try await store.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.1"),
                                                    progress: nil)
        }

        func ping() -> String { "ping" }
    }

    /// What happened, in order, across threads.
    final class Steps: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [String] = []
        func add(_ step: String) { lock.withLock { items.append(step) } }
        var all: [String] { lock.withLock { items } }
    }

    /// (An async form that ran the blocking call on its caller's executor, as a `nonisolated(nonsending)` one
    /// does, would hold the actor until the batch gives up.)
    @Test func anActorAwaitingAWriteStaysFreeWhileTheWriterIsBusy() async throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        let steps = Steps()
        // Another thread holds the writer (a batch) until it is told to let go, or after 900 s at most (a bound on a
        // hang: in the whole suite, on a loaded machine, the awaiting task may wait minutes for a thread of its own;
        // a clean-clone run on two cores under two builds waited over 300 s once).
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        Thread {
            try? store.batch {
                holding.signal()
                if release.wait(timeout: .now() + 900) == .timedOut { steps.add("gave up holding") }
            }
        }.start()
        holding.wait()
        let screen = Screen(store)
        let entered = AsyncStream<Void>.makeStream()
        let writing = Task { try await screen.bookmark(entered: entered.continuation) }
        for await _ in entered.stream { break }
        // The write waits for the writer now; the actor answers meanwhile.
        steps.add(await screen.ping())
        release.signal()
        let made = try await writing.value
        #expect(steps.all == ["ping"])
        #expect(try store.annotation(id: made.id) == made)
    }
}
