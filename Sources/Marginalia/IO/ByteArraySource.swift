/// A `ByteSource` over bytes held in memory.
package final class ByteArraySource: ByteSource {
    private let bytes: [UInt8]
    private var offset = 0
    /// The most bytes one `read(into:)` returns; tests set it low to split input at awkward places.
    private let maxReadSize: Int

    /// Creates a source that reads `bytes` from the start.
    ///
    /// - Parameters:
    ///   - bytes: The bytes to deliver.
    ///   - maxReadSize: The most bytes a single read returns (at least 1).
    package init(_ bytes: [UInt8], maxReadSize: Int = .max) {
        self.bytes = bytes
        self.maxReadSize = max(1, maxReadSize)
    }

    /// How many bytes have been read so far.
    package var bytesRead: Int { offset }

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = min(buffer.count, bytes.count - offset, maxReadSize)
        guard count > 0, let destination = buffer.baseAddress else { return 0 }
        bytes.withUnsafeBytes { all in
            guard let start = all.baseAddress else { return }
            destination.copyMemory(from: start + offset, byteCount: count)
        }
        offset += count
        return count
    }
}

@available(*, unavailable)
extension ByteArraySource: Sendable {}
