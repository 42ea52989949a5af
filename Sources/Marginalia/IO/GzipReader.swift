internal import CZlib

/// Decompresses exactly one gzip member from a `ByteSource`, strictly, with bounded memory.
///
/// Unlike `gzread` or `gzip -dc`, the reader refuses everything but one complete, intact gzip member: an empty
/// file, files that are not gzip (with a guess at what they are), corrupt data, a CRC-32 or length mismatch in
/// the trailer, truncation anywhere (even inside the 8-byte trailer), anything after the member (a second member
/// included), and output beyond `maxDecompressedBytes`. See `GzipError` for the cases.
///
/// Memory is one fixed input buffer plus zlib's state (about 40 KiB); decompressed bytes go straight into the
/// caller's buffer. The reader is itself a `ByteSource`, so `LineReader` can sit on top of it.
///
/// ```swift
/// let reader = try GzipReader(source: try FileSource(path: path))
/// try reader.forEachChunk { chunk in hasher.update(chunk) }
/// // Reaching here means the whole member was verified, trailer included.
/// ```
///
/// - Important: Bytes are delivered before the trailer is checked, and zlib may emit nearly all of a corrupt
///   file's plaintext before it notices. Commit nothing until `read(into:)` has returned 0 (or `forEachChunk` has
///   returned) without throwing.
package final class GzipReader: ByteSource {
    /// The default cap on decompressed output, 4 GiB.
    package static let defaultMaxDecompressedBytes: UInt64 = 4 << 30
    /// The default size of the compressed-input buffer.
    package static let defaultInputBufferSize = 128 * 1024
    /// The chunk size `forEachChunk` uses.
    package static let chunkSize = 256 * 1024

    /// Decompressing past this many bytes throws `GzipError.sizeLimitExceeded`.
    package let maxDecompressedBytes: UInt64
    /// Decompressed bytes delivered so far.
    package private(set) var decompressedCount: UInt64 = 0
    /// Bytes taken from the source so far.
    package private(set) var compressedCount: UInt64 = 0

    private let source: any ByteSource
    private let stream: UnsafeMutablePointer<z_stream>
    private let input: UnsafeMutableRawBufferPointer
    private var sourceAtEnd = false
    private var phase = Phase.start

    private enum Phase {
        case start, inflating, ended
        case failed(any Error)
    }

    /// Whether the whole member, trailer included, has been read and verified, with nothing after it.
    package var isComplete: Bool {
        if case .ended = phase { return true }
        return false
    }

    /// Prepares to decompress `source`; nothing is read until the first `read(into:)`.
    ///
    /// - Parameters:
    ///   - source: The compressed bytes.
    ///   - maxDecompressedBytes: The most decompressed bytes to accept.
    ///   - inputBufferSize: The size of the compressed-input buffer (at least 64 bytes is used).
    /// - Throws: `GzipError.zlib` when zlib cannot allocate its state.
    package init(
        source: any ByteSource,
        maxDecompressedBytes: UInt64 = defaultMaxDecompressedBytes,
        inputBufferSize: Int = defaultInputBufferSize
    ) throws {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        // zlib: "The fields next_in, avail_in, zalloc, zfree and opaque must be initialized before by the caller."
        // z_stream() is all zeros (Z_NULL allocators mean the defaults). It lives on the heap because zlib's
        // state points back at it. https://zlib.net/manual.html
        stream.initialize(to: z_stream())
        // zlib: "add 16 to decode only the gzip format (the zlib format will return a Z_DATA_ERROR)."
        // https://zlib.net/manual.html
        let rc = marginalia_inflateInit2(stream, 15 + 16)
        guard rc == Z_OK else {
            let error = GzipError.zlib(function: "inflateInit2", code: rc, message: GzipWriter.message(stream, rc))
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw error
        }
        self.source = source
        self.stream = stream
        self.maxDecompressedBytes = maxDecompressedBytes
        self.input = .allocate(byteCount: max(inputBufferSize, 64), alignment: 16)
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
        input.deallocate()
    }

    /// Decompresses the next bytes into `buffer`.
    ///
    /// - Parameter buffer: Where to put decompressed bytes.
    /// - Returns: The number of bytes written to `buffer`; 0 only once the member has been verified to the end
    ///   with nothing after it (or when `buffer` is empty).
    /// - Throws: A `GzipError` refusing the input, or the source's error. Errors are sticky: later calls throw
    ///   the same error again.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        switch phase {
        case .ended:
            return 0
        case .failed(let error):
            throw error
        case .start, .inflating:
            break
        }
        guard let out = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        do {
            if case .start = phase {
                try start()
                phase = .inflating
            }
            return try inflateSome(into: out, count: buffer.count)
        } catch {
            phase = .failed(error)
            throw error
        }
    }

    /// Calls `body` with each decompressed chunk (up to `chunkSize` bytes) until the verified end of the member.
    ///
    /// - Parameter body: Receives each chunk; the buffer is only valid during the call.
    /// - Throws: A `GzipError` refusing the input, or an error from the source or from `body`.
    package func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
        defer { chunk.deallocate() }
        while true {
            let count = try read(into: chunk)
            if count == 0 { return }
            try body(UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
        }
    }

    /// Decompresses the rest of the member into an array; for small files and tests.
    ///
    /// - Throws: See `read(into:)`.
    package func readAll() throws -> [UInt8] {
        var bytes: [UInt8] = []
        try forEachChunk { bytes.append(contentsOf: $0) }
        return bytes
    }

    // MARK: - Inflating

    /// Reads the first bytes and refuses the input unless it could be gzip.
    private func start() throws {
        var filled = 0
        // 16 bytes are enough to recognise an SQLite header; sources may return fewer per read.
        while filled < 16 && !sourceAtEnd {
            try refill(at: filled)
            filled += Int(stream.pointee.avail_in)
        }
        if let refusal = Self.refusal(forFirstBytes: UnsafeRawBufferPointer(rebasing: input[0..<filled])) {
            throw refusal
        }
        stream.pointee.next_in = input.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_in = UInt32(filled)
    }

    /// Runs inflate until it produces output, ends the member, or fails.
    private func inflateSome(into out: UnsafeMutableRawPointer, count: Int) throws -> Int {
        // One byte more than the cap still allows, so passing the cap shows without inflating any further.
        let remaining = maxDecompressedBytes > decompressedCount ? maxDecompressedBytes - decompressedCount : 0
        let allowance = remaining.addingReportingOverflow(1)
        let limit = allowance.overflow ? UInt64.max : allowance.partialValue
        let outCount = UInt32(min(UInt64(count), limit, UInt64(UInt32.max)))
        while true {
            if stream.pointee.avail_in == 0 && !sourceAtEnd {
                try refill(at: 0)
            }
            stream.pointee.next_out = out.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = outCount
            let rc = inflate(stream, Z_NO_FLUSH)
            let produced = Int(outCount - stream.pointee.avail_out)
            decompressedCount += UInt64(produced)
            if decompressedCount > maxDecompressedBytes {
                throw GzipError.sizeLimitExceeded(limit: maxDecompressedBytes)
            }
            switch rc {
            case Z_OK:
                if produced > 0 { return produced }
            case Z_STREAM_END:
                // zlib: "At the end of the stream, inflate() checks that its computed Adler-32 checksum is equal
                // to that saved by the compressor and returns Z_STREAM_END only if the checksum is correct." and
                // "The CRC-32 is checked against the gzip trailer, as is the uncompressed length, modulo 2^32."
                // https://zlib.net/manual.html
                try refuseTrailingBytes()
                phase = .ended
                return produced
            case Z_BUF_ERROR:
                // zlib: Z_BUF_ERROR "if no progress was possible". The output had room, so the input ran out
                // before the end of the member. https://zlib.net/manual.html
                if stream.pointee.avail_in == 0 && sourceAtEnd {
                    throw GzipError.truncated
                }
                if stream.pointee.avail_in > 0 {
                    throw GzipError.zlib(function: "inflate", code: rc, message: "no progress possible")
                }
            case Z_DATA_ERROR:
                // zlib: Z_DATA_ERROR "if the input data was corrupted (input stream not conforming to the zlib
                // format or incorrect check value, in which case strm->msg points to a string with a more
                // specific error)". https://zlib.net/manual.html
                throw Self.dataError(GzipWriter.message(stream, rc))
            case Z_NEED_DICT:
                throw GzipError.corruptData("the stream asks for a preset dictionary, which gzip does not have")
            default:
                throw GzipError.zlib(function: "inflate", code: rc, message: GzipWriter.message(stream, rc))
            }
        }
    }

    /// Refuses any byte after the end of the member.
    private func refuseTrailingBytes() throws {
        // zlib: "inflate() will *not* automatically decode concatenated gzip members. inflate() will return
        // Z_STREAM_END at the end of the gzip member." Anything left over is ours to refuse.
        // https://zlib.net/manual.html
        var trailing: [UInt8] = []
        while trailing.count < 2 {
            if stream.pointee.avail_in == 0 {
                if sourceAtEnd { break }
                try refill(at: 0)
                continue
            }
            if let next = stream.pointee.next_in {
                trailing.append(next.pointee)
                stream.pointee.next_in = next + 1
            }
            stream.pointee.avail_in -= 1
        }
        if trailing.isEmpty { return }
        throw trailing == [0x1f, 0x8b] ? GzipError.secondMember : GzipError.trailingData
    }

    /// Reads from the source into the input buffer from `offset` on, and points zlib at the new bytes.
    private func refill(at offset: Int) throws {
        let count = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: input[offset...]))
        if count == 0 {
            sourceAtEnd = true
        }
        compressedCount += UInt64(count)
        stream.pointee.next_in = input.baseAddress.map { ($0 + offset).assumingMemoryBound(to: Bytef.self) }
        stream.pointee.avail_in = UInt32(count)
    }

    // MARK: - Classifying refusals

    /// The refusal for a file starting with `head` (up to 16 bytes, fewer only for a shorter file), or nil if it
    /// could be gzip.
    static func refusal(forFirstBytes head: UnsafeRawBufferPointer) -> GzipError? {
        switch FileSignature.classify(head) {
        case .gzip: return nil
        case .empty: return .emptyFile
        case .sqlite: return .sqliteDatabase
        case .zip: return .zipArchive
        case .json: return .uncompressedJSON
        case .sqliteWAL, .age, .other: return .notGzip
        }
    }

    /// Maps zlib's message for a Z_DATA_ERROR to a specific refusal.
    static func dataError(_ message: String) -> GzipError {
        // The exact strings that inflate.c (zlib 1.2.13) sets for a bad gzip trailer; GzipRefusalTests pins them.
        switch message {
        case "incorrect data check":
            return .checksumMismatch
        case "incorrect length check":
            return .lengthMismatch
        default:
            return .corruptData(message)
        }
    }
}

@available(*, unavailable)
extension GzipReader: Sendable {}
