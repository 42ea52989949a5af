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
    package func readAhead(_ handle: (ArchiveRecord, Int) throws -> Void) throws -> ArchiveSummary {
        typealias Block = [(record: ArchiveRecord, line: Int)]
        let blocks = BoundedQueue<Block>(capacity: 4)
        let reader = self
        let reading = BackgroundWork {
            defer { blocks.close() }
            var block: Block = []
            do {
                let summary = try reader.read { record, line in
                    block.append((record, line))
                    if block.count >= 256 {
                        try blocks.put(block)
                        block = []
                    }
                }
                if !block.isEmpty { try blocks.put(block) }
                return summary
            } catch {
                // The records read before the error come first, as reading in line hands them over.
                if !block.isEmpty { try? blocks.put(block) }
                throw error
            }
        }
        defer {
            blocks.cancel()
            _ = reading.wait()
        }
        while let block = blocks.take() {
            for (record, line) in block { try handle(record, line) }
        }
        return try reading.wait().get()
    }
}
