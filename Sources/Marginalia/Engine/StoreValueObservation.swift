/// A value read from the store, read again after each commit that may change it, and delivered when it did: what
/// `observeAnnotations(matching:)` and `observePosition(document:)` are made of.
///
/// The stream of events is joined before the first read, so no commit falls between the two. Each event is then
/// judged by `mayChange` in one read transaction, and the value read again in that same snapshot only when the
/// event may have changed it. A value equal to the last one delivered is not delivered again (a commit judged
/// by the ids it touched may leave the value as it was). Every read runs on a reader connection, on a thread of
/// its own, never on the caller's.
struct StoreValueObservation<Value: Equatable & Sendable>: Sendable {
    /// Reads the value.
    var fetch: @Sendable (StoreConnection) throws -> Value
    /// Whether the commit `event` announced may have changed `value`, the last one read; asked in the snapshot the
    /// value would be read again from.
    var mayChange: @Sendable (_ event: StoreEvent, _ value: Value, StoreConnection) throws -> Bool

    /// The value now, then each new value after a commit changed it, until the store closes or the consumer stops.
    ///
    /// A closed store finishes the stream; a read that fails finishes it with that error (a `MarginaliaError`).
    /// Cancelling the consuming task ends the reads and leaves the store's events.
    func values(in store: AnnotationStore) -> AsyncThrowingStream<Value, Error> {
        let (stream, continuation) = AsyncThrowingStream<Value, Error>.makeStream()
        let task = Task {
            do {
                try await deliver(from: store, to: continuation)
                continuation.finish()
            } catch let error as MarginaliaError where error.category == .closed || error.category == .cancelled {
                // The store closed, or the consumer went away: the stream ends as the store's events do.
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Reads the value and yields it, then reads again after each event that may have changed it.
    private func deliver(from store: AnnotationStore,
                         to continuation: AsyncThrowingStream<Value, Error>.Continuation) async throws {
        let engine = store.engine
        let fetch = self.fetch
        let mayChange = self.mayChange
        let (events, first) = try await AnnotationStore.offActor(progress: nil) { _ in
            // Joined first: a commit made before the read is then announced too, and only read again.
            let events = store.events()
            return (events, try engine.read(fetch))
        }
        continuation.yield(first)
        var last = first
        for await event in events {
            let value = last
            let next = try await AnnotationStore.offActor(progress: nil) { _ in
                try engine.read { connection in
                    try mayChange(event, value, connection) ? fetch(connection) : nil
                }
            }
            guard let next, next != last else { continue }
            continuation.yield(next)
            last = next
        }
    }
}
