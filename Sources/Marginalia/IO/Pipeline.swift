import Foundation

/// A queue between two threads that holds at most `capacity` elements: `put` waits while it is full, `take`
/// while it is empty. The producer ends it with `close()` (the consumer takes what is left, then nil); the
/// consumer with `cancel()` (what is queued is dropped and `put` throws `Cancelled`).
///
/// The export's compression and the import's reading run a block or a few ahead of the other side through
/// one of these, so their memory is bounded whatever the store's size.
final class BoundedQueue<Element>: @unchecked Sendable {
    /// Thrown by `put` once the consumer has stopped.
    struct Cancelled: Error {}

    private let condition = NSCondition()
    private let capacity: Int
    private var elements: [Element] = []
    private var closed = false
    private var cancelled = false

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Adds an element, waiting while the queue is full.
    func put(_ element: Element) throws {
        condition.lock()
        defer { condition.unlock() }
        while elements.count >= capacity && !cancelled { condition.wait() }
        if cancelled { throw Cancelled() }
        elements.append(element)
        condition.broadcast()
    }

    /// The oldest element, waiting while the queue is empty; nil once it is closed and drained, or cancelled.
    func take() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while elements.isEmpty && !closed && !cancelled { condition.wait() }
        guard !cancelled, !elements.isEmpty else { return nil }
        condition.broadcast()
        return elements.removeFirst()
    }

    /// The producer is done: no more elements will come.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// The consumer is done: queued elements are dropped and later puts throw.
    func cancel() {
        condition.lock()
        cancelled = true
        elements.removeAll()
        condition.broadcast()
        condition.unlock()
    }
}

/// Work run on a thread of its own; `wait()` returns how it ended.
final class BackgroundWork<Value>: @unchecked Sendable {
    private let condition = NSCondition()
    private var outcome: Result<Value, any Error>?

    init(_ body: @escaping @Sendable () throws -> Value) {
        Thread.detachNewThread { [self] in
            let ended = Result(catching: body)
            condition.lock()
            outcome = ended
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Waits until the work has ended, and returns its value or its error.
    func wait() -> Result<Value, any Error> {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let outcome { return outcome }
            condition.wait()
        }
    }
}
