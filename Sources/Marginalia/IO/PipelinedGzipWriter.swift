/// Hands blocks of bytes (an export's lines) to a `GzipWriter` on a second thread, so that deflate runs while the
/// caller reads the store and writes the next block: an export then takes about as long as deflate alone, not
/// deflate plus SQLite plus JSON.
///
/// At most two blocks wait (the queue's capacity), so memory stays bounded. The gzip writer and its sink are used by
/// the worker thread only, until `finish()` or `stop()` returns.
final class PipelinedGzipWriter {
    private let gzip: GzipWriter
    private let blocks = BoundedQueue<[UInt8]>(capacity: 2)
    private let worker: BackgroundWork<Void>

    init(gzip: GzipWriter) {
        self.gzip = gzip
        let blocks = self.blocks
        let unchecked = UncheckedSendable(gzip)
        worker = BackgroundWork {
            do {
                while let block = blocks.take() { try block.withUnsafeBytes { try unchecked.value.write($0) } }
            } catch {
                blocks.cancel()
                throw error
            }
        }
    }

    /// Queues a block for compression, waiting while the queue is full.
    /// - Throws: the error that stopped the worker (zlib's or the sink's), if any.
    func write(_ block: [UInt8]) throws {
        do {
            try blocks.put(block)
        } catch is BoundedQueue<[UInt8]>.Cancelled {
            try worker.wait().get()
            throw GzipError.alreadyFinished
        }
    }

    /// Waits until every queued block is compressed and stops the worker; then ends the gzip member.
    func finish() throws {
        try stop()
        try gzip.finish()
    }

    /// Stops the worker once the queue is empty (after an error elsewhere, too); throws the worker's error.
    func stop() throws {
        blocks.close()
        try worker.wait().get()
    }
}

/// A value handed to one other thread that alone uses it until the handing thread waits for it to finish.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
