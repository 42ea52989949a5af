/// A `ByteSource` that gives bytes already read first, then the rest of `base`: how a reader looks at a file's first
/// bytes to tell what it is and still hands the whole file on.
final class PrefixedSource: ByteSource {
    private let base: any ByteSource
    private var prefix: [UInt8]
    private var offset = 0

    /// Gives `prefix`, then what `base` gives.
    init(_ prefix: [UInt8], then base: any ByteSource) {
        self.prefix = prefix
        self.base = base
    }

    /// Reads up to `count` bytes from `base`, fewer only at its end: what a caller looks at before deciding.
    static func peek(_ count: Int, from base: any ByteSource) throws -> [UInt8] {
        var head = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let read = try head.withUnsafeMutableBytes { buffer in
                try base.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            }
            if read == 0 { break }
            filled += read
        }
        return Array(head[..<filled])
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard offset < prefix.count else { return try base.read(into: buffer) }
        let count = min(buffer.count, prefix.count - offset)
        prefix.withUnsafeBytes { bytes in
            buffer.baseAddress?.copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
        }
        offset += count
        return count
    }
}

@available(*, unavailable)
extension PrefixedSource: Sendable {}
