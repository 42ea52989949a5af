/// A `ByteSource` that hashes every byte it passes on from `base`: the SHA-256 of a file exactly as it was read.
final class HashingSource: ByteSource {
    private let base: any ByteSource
    private let hasher: SHA256Hasher
    /// How many bytes have been read so far.
    private(set) var bytesRead = 0

    /// Reads from `base`, hashing as it goes.
    init(_ base: any ByteSource) throws {
        self.base = base
        hasher = try SHA256Hasher()
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = try base.read(into: buffer)
        try hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        bytesRead += count
        return count
    }

    /// The SHA-256 of every byte read so far, as 64 hex digits; call it once, after the last read.
    func finalizeHex() throws -> String {
        try hasher.finalizeHex()
    }
}

@available(*, unavailable)
extension HashingSource: Sendable {}
