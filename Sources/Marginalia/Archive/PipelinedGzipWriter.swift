import Foundation

/// Hands blocks of archive lines to a `GzipWriter` on a second thread, so that deflate runs while the caller
/// reads the store and writes the next block: an export then takes about as long as deflate alone, not deflate
/// plus SQLite plus JSON.
///
/// At most `depth` blocks wait, so memory stays bounded. The gzip writer and its sink are used by the worker
/// thread only, until `finish()` returns.
final class PipelinedGzipWriter: @unchecked Sendable {
    private let gzip: GzipWriter
    private let condition = NSCondition()
    private var queue: [[UInt8]] = []
    private var closing = false
    private var running = true
    private var failure: (any Error)?
    private static let depth = 2

    init(gzip: GzipWriter) {
        self.gzip = gzip
        Thread.detachNewThread { [self] in run() }
    }

    /// Queues a block for compression, waiting while `depth` blocks are already queued.
    /// - Throws: the error that stopped the worker (zlib's or the sink's), if any.
    func write(_ block: [UInt8]) throws {
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= Self.depth && failure == nil { condition.wait() }
        if let failure { throw failure }
        queue.append(block)
        condition.broadcast()
    }

    /// Waits until every queued block is compressed and stops the worker; then ends the gzip member.
    func finish() throws {
        try stop()
        try gzip.finish()
    }

    /// Stops the worker once the queue is empty (after an error elsewhere, too); throws the worker's error.
    func stop() throws {
        condition.lock()
        closing = true
        condition.broadcast()
        while running { condition.wait() }
        let failure = self.failure
        condition.unlock()
        if let failure { throw failure }
    }

    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty && !closing { condition.wait() }
            guard !queue.isEmpty else {
                running = false
                condition.broadcast()
                condition.unlock()
                return
            }
            let block = queue.removeFirst()
            condition.broadcast()
            condition.unlock()
            do {
                try block.withUnsafeBytes { try gzip.write($0) }
            } catch {
                condition.lock()
                failure = error
                queue.removeAll()
                running = false
                condition.broadcast()
                condition.unlock()
                return
            }
        }
    }
}
