import Foundation

extension ArchiveReader {
    /// Reads the whole archive like `read`, with the file read, inflated, parsed and checked on a second thread
    /// a few hundred records ahead of `handle`: an import then takes about as long as merging alone, not reading
    /// plus merging.
    ///
    /// `handle` runs on the calling thread and sees the records in file order, exactly as with `read`; the first
    /// error in file order is the one thrown, whether the reader's or `handle`'s. When `handle` throws, the
    /// reading thread is stopped and waited for before this returns, so the file is closed.
    @discardableResult
    public func readAhead(_ handle: (ArchiveRecord, Int) throws -> Void) throws -> ArchiveSummary {
        let channel = RecordChannel()
        let reader = self
        Thread.detachNewThread {
            channel.finish(Result { try reader.read { record, line in try channel.send(record, line: line) } })
        }
        defer {
            channel.cancel()
            channel.waitUntilFinished()
        }
        while let block = channel.receive() {
            for (record, line) in block { try handle(record, line) }
        }
        return try channel.summary()
    }
}

/// Hands blocks of records from the thread that reads an archive to the one that handles them.
///
/// At most `depth` blocks of `blockSize` records wait, so memory stays bounded whatever the archive's size.
final class RecordChannel: @unchecked Sendable {
    typealias Block = [(record: ArchiveRecord, line: Int)]

    private let condition = NSCondition()
    /// Filled by the reading thread only.
    private var filling: Block = []
    private var blocks: [Block] = []
    private var outcome: Result<ArchiveSummary, any Error>?
    private var cancelled = false
    private static let blockSize = 256
    private static let depth = 4

    /// Thrown on the reading thread when the handler has stopped.
    private struct Cancelled: Error {}

    // MARK: - The reading thread

    /// Adds a record, waiting while `depth` blocks are full.
    func send(_ record: ArchiveRecord, line: Int) throws {
        filling.append((record, line))
        guard filling.count >= Self.blockSize else { return }
        condition.lock()
        defer { condition.unlock() }
        while blocks.count >= Self.depth && !cancelled { condition.wait() }
        if cancelled { throw Cancelled() }
        blocks.append(filling)
        filling = []
        condition.broadcast()
    }

    /// Hands over the last records and how reading ended.
    func finish(_ result: Result<ArchiveSummary, any Error>) {
        condition.lock()
        defer { condition.unlock() }
        if !filling.isEmpty { blocks.append(filling) }
        filling = []
        outcome = result
        condition.broadcast()
    }

    // MARK: - The handling thread

    /// The next block of records, in file order; nil once every record has been received.
    func receive() -> Block? {
        condition.lock()
        defer { condition.unlock() }
        while blocks.isEmpty && outcome == nil { condition.wait() }
        guard !blocks.isEmpty else { return nil }
        condition.broadcast()
        return blocks.removeFirst()
    }

    /// How reading ended, once `receive` has returned nil: the summary, or the reader's error.
    func summary() throws -> ArchiveSummary {
        condition.lock()
        defer { condition.unlock() }
        guard let outcome else { throw ArchiveError(file: "", kind: .io, reason: "the archive was not read") }
        return try outcome.get()
    }

    /// Stops the reading thread at its next block.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until the reading thread has ended.
    func waitUntilFinished() {
        condition.lock()
        while outcome == nil { condition.wait() }
        condition.unlock()
    }
}
