internal import CZlib

/// Compresses a stream of bytes into a single gzip member, written to a `ByteSink` in large blocks.
///
/// Input is handed to zlib's `deflate` as is (no copying or per-byte work in Swift); compressed output collects in
/// one fixed buffer and goes to the sink whenever that buffer fills, and once more at `finish()`.
///
/// ```swift
/// let sink = try FileSink(path: path)
/// let writer = try GzipWriter(sink: sink)
/// try writer.write("{\"kind\":\"manifest\"}\n")
/// try writer.finish()
/// try sink.sync()
/// try sink.close()
/// ```
///
/// After any error the writer is failed: the output is incomplete and later calls throw
/// `IOError` (`EBADF`).
package final class GzipWriter {
    /// zlib's default trade-off between speed and size, the same as `gzip -6`.
    package static let defaultLevel = 6
    /// The size of the compressed-output buffer, and so of most writes to the sink.
    package static let defaultBufferSize = 256 * 1024

    /// Bytes accepted by `write` so far.
    package private(set) var uncompressedCount: UInt64 = 0
    /// Compressed bytes handed to the sink so far; after `finish()`, the size of the gzip file.
    package private(set) var compressedCount: UInt64 = 0

    private let sink: any ByteSink
    private let stream: UnsafeMutablePointer<z_stream>
    private let buffer: UnsafeMutableRawBufferPointer
    private var buffered = 0
    private var state = State.open

    private enum State {
        case open, finished, failed
    }

    /// Starts a gzip member whose compressed bytes go to `sink`.
    ///
    /// - Parameters:
    ///   - sink: Where the compressed bytes go.
    ///   - level: The zlib compression level, 0 (store) through 9 (smallest).
    ///   - bufferSize: The size of the output buffer (at least 4 KiB is used).
    /// - Throws: `GzipError.zlib` for an invalid level or when zlib cannot allocate its state.
    package init(sink: any ByteSink, level: Int = defaultLevel, bufferSize: Int = defaultBufferSize) throws {
        guard (0...9).contains(level) else {
            throw GzipError.zlib(function: "deflateInit2", code: Z_STREAM_ERROR,
                                 message: "invalid compression level \(level)")
        }
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        // zlib: "The fields zalloc, zfree and opaque must be initialized before by the caller. If zalloc and zfree
        // are set to Z_NULL, deflateInit updates them to use default allocation functions." z_stream() is all
        // zeros. The stream is heap-allocated because zlib's state points back at it, so it must never move.
        // https://zlib.net/manual.html
        stream.initialize(to: z_stream())
        // zlib: "Add 16 to windowBits to write a simple gzip header and trailer around the compressed data instead
        // of a zlib wrapper." memLevel 8 is "the default value". https://zlib.net/manual.html
        let rc = marginalia_deflateInit2(stream, Int32(level), Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY)
        guard rc == Z_OK else {
            let error = GzipError.zlib(function: "deflateInit2", code: rc, message: Self.message(stream, rc))
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw error
        }
        self.sink = sink
        self.stream = stream
        self.buffer = .allocate(byteCount: max(bufferSize, 4096), alignment: 16)
    }

    deinit {
        if state != .finished {
            deflateEnd(stream)
        }
        stream.deinitialize(count: 1)
        stream.deallocate()
        buffer.deallocate()
    }

    /// Compresses `bytes`.
    ///
    /// - Throws: `IOError` (`EBADF`) after `finish()` or an earlier failure, `GzipError.zlib` if zlib fails,
    ///   or whatever the sink throws (e.g. `IOError` for `ENOSPC`).
    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard state == .open else { throw GzipError.alreadyFinished }
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        var offset = 0
        while offset < bytes.count {
            // avail_in is a 32-bit uInt, so larger inputs go in slices.
            let count = min(bytes.count - offset, 1 << 30)
            stream.pointee.next_in = UnsafeMutableRawPointer(mutating: base + offset)
                .assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_in = UInt32(count)
            try run(flush: Z_NO_FLUSH)
            offset += count
            uncompressedCount += UInt64(count)
        }
    }

    /// Compresses `bytes`.
    ///
    /// - Throws: See `write(_:)` for a raw buffer.
    package func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Compresses the UTF-8 bytes of `text`.
    ///
    /// - Throws: See `write(_:)` for a raw buffer.
    package func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
    }

    /// Ends the gzip member (its trailer holds the CRC-32 and length) and writes every remaining byte to the sink.
    ///
    /// The sink is not synced or closed: that is the caller's decision.
    ///
    /// - Throws: `IOError` (`EBADF`) if already finished or failed, `GzipError.zlib`, or the sink's error.
    package func finish() throws {
        guard state == .open else { throw GzipError.alreadyFinished }
        stream.pointee.next_in = nil
        stream.pointee.avail_in = 0
        try run(flush: Z_FINISH)
        try drain()
        state = .finished
        deflateEnd(stream)
    }

    // MARK: - Driving deflate

    /// Runs deflate until it has taken all input (`Z_NO_FLUSH`) or ended the stream (`Z_FINISH`).
    private func run(flush: Int32) throws {
        do {
            while true {
                guard let out = buffer.baseAddress else { return }
                stream.pointee.next_out = (out + buffered).assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = UInt32(buffer.count - buffered)
                let rc = deflate(stream, flush)
                let roomLeft = stream.pointee.avail_out > 0
                buffered = buffer.count - Int(stream.pointee.avail_out)
                if !roomLeft {
                    try drain()
                }
                switch rc {
                case Z_STREAM_END:
                    return
                case Z_OK, Z_BUF_ERROR:
                    if flush == Z_NO_FLUSH && stream.pointee.avail_in == 0 {
                        return
                    }
                    // zlib: Z_BUF_ERROR means "no progress is possible (for example avail_in or avail_out was
                    // zero)". With room in the buffer and work left, that would loop forever.
                    // https://zlib.net/manual.html
                    if rc == Z_BUF_ERROR && roomLeft {
                        throw GzipError.zlib(function: "deflate", code: rc, message: "no progress possible")
                    }
                default:
                    throw GzipError.zlib(function: "deflate", code: rc, message: Self.message(stream, rc))
                }
            }
        } catch {
            state = .failed
            throw error
        }
    }

    /// Hands the buffered compressed bytes to the sink.
    private func drain() throws {
        guard buffered > 0 else { return }
        do {
            try sink.write(UnsafeRawBufferPointer(rebasing: buffer[0..<buffered]))
        } catch {
            state = .failed
            throw error
        }
        compressedCount += UInt64(buffered)
        buffered = 0
    }

    /// zlib's message for a failure, or a fallback naming the return code.
    static func message(_ stream: UnsafeMutablePointer<z_stream>, _ rc: Int32) -> String {
        if let message = stream.pointee.msg {
            return String(cString: message)
        }
        return String(cString: zError(rc))
    }
}

@available(*, unavailable)
extension GzipWriter: Sendable {}
