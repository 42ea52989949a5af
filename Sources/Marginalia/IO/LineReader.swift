#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Splits a byte stream (usually a `GzipReader`) into lines, one at a time, with bounded memory.
///
/// A line is the bytes up to, not including, a "\n". Nothing else is interpreted: a "\r" before the "\n" stays in
/// the line for the JSON layer to reject. A format that requires every line, the last included, to end with "\n"
/// (an archive, a sync segment) still gets a last line without one: `Line.endsWithNewline` is false, and
/// `missingFinalNewline` becomes true, so the caller can refuse the file as truncated.
///
/// ```swift
/// let lines = LineReader(source: try GzipReader(source: try FileSource(path: path)))
/// while let line = try lines.next() {
///     try parse(line.bytes, lineNumber: line.number)
/// }
/// if lines.missingFinalNewline { throw Truncated() }
/// ```
///
/// Memory: one buffer, starting at `bufferSize` and growing only as far as `maxLineBytes + 1` bytes for one long
/// line. A longer line is refused once `maxLineBytes + 1` of its bytes are buffered, without reading the rest.
package final class LineReader {
    /// One line of the stream.
    package struct Line: Sendable {
        /// The 1-based line number.
        package let number: Int
        /// The line's bytes without the "\n".
        ///
        /// The slice shares storage with the reader's buffer, so taking it costs nothing. Dropping it before the
        /// next call to `next()` keeps reading copy-free; holding on to it stays correct (copy-on-write) but makes
        /// the reader copy its whole buffer once. Use `Array(line.bytes)` to keep a line for long.
        package let bytes: ArraySlice<UInt8>
        /// Whether a "\n" ended the line; false only for a last line that was cut short.
        package let endsWithNewline: Bool
    }

    /// The default cap on one line, 64 MiB.
    package static let defaultMaxLineBytes = 64 << 20
    /// The default starting size of the buffer.
    package static let defaultBufferSize = 256 * 1024

    /// A line longer than this many bytes (without its "\n") throws `GzipError.lineTooLong`.
    package let maxLineBytes: Int
    /// The number of the last line returned, 0 before the first.
    package private(set) var lineNumber = 0
    /// Whether the stream ended with bytes after the last "\n"; meaningful once `next()` has returned nil.
    package private(set) var missingFinalNewline = false

    private let source: any ByteSource
    private var buffer: [UInt8]
    /// Unconsumed bytes are `buffer[start..<end]`; `buffer[start..<scanned]` is known to hold no "\n".
    private var start = 0
    private var scanned = 0
    private var end = 0
    private var sourceAtEnd = false
    private var failure: (any Error)?

    /// Prepares to read lines from `source`.
    ///
    /// - Parameters:
    ///   - source: The decompressed bytes, usually a `GzipReader`.
    ///   - maxLineBytes: The longest line accepted, in bytes without the "\n".
    ///   - bufferSize: The starting size of the buffer (at least 16 bytes is used).
    package init(
        source: any ByteSource,
        maxLineBytes: Int = defaultMaxLineBytes,
        bufferSize: Int = defaultBufferSize
    ) {
        self.source = source
        self.maxLineBytes = max(0, maxLineBytes)
        self.buffer = [UInt8](repeating: 0, count: max(bufferSize, 16))
    }

    /// Returns the next line, or nil at the end of the stream.
    ///
    /// Reaching nil with a `GzipReader` source means the whole gzip member was verified, its trailer included.
    ///
    /// - Throws: `GzipError.lineTooLong` naming the line, or any error from the source. Errors are sticky: later
    ///   calls throw the same error again.
    package func next() throws -> Line? {
        if let failure { throw failure }
        do {
            return try nextLine()
        } catch {
            failure = error
            throw error
        }
    }

    /// Calls `body` with each line until the end of the stream.
    ///
    /// - Parameter body: Receives each line; see `Line.bytes` for its lifetime.
    /// - Throws: See `next()`, and whatever `body` throws.
    package func forEachLine(_ body: (Line) throws -> Void) throws {
        while let line = try next() {
            try body(line)
        }
    }

    // MARK: - Buffering

    private func nextLine() throws -> Line? {
        while true {
            if let newline = findNewline() {
                lineNumber += 1
                guard newline - start <= maxLineBytes else {
                    throw GzipError.lineTooLong(line: lineNumber, limit: maxLineBytes)
                }
                let line = Line(number: lineNumber, bytes: buffer[start..<newline], endsWithNewline: true)
                start = newline + 1
                scanned = start
                return line
            }
            scanned = end
            guard end - start <= maxLineBytes else {
                throw GzipError.lineTooLong(line: lineNumber + 1, limit: maxLineBytes)
            }
            if sourceAtEnd {
                guard start < end else { return nil }
                lineNumber += 1
                missingFinalNewline = true
                let line = Line(number: lineNumber, bytes: buffer[start..<end], endsWithNewline: false)
                start = end
                scanned = end
                return line
            }
            try fill()
        }
    }

    /// The index of the first "\n" in `buffer[scanned..<end]`, if any.
    private func findNewline() -> Int? {
        guard scanned < end else { return nil }
        return buffer.withUnsafeBytes { bytes -> Int? in
            guard let base = bytes.baseAddress,
                  let found = memchr(base + scanned, 0x0a, end - scanned) else { return nil }
            return base.distance(to: UnsafeRawPointer(found))
        }
    }

    /// Reads more bytes after `end`, first making room by moving the unconsumed bytes to the front or growing.
    private func fill() throws {
        if end == buffer.count {
            if start > 0 {
                let count = end - start
                let from = start
                buffer.withUnsafeMutableBytes { bytes in
                    guard let base = bytes.baseAddress else { return }
                    memmove(base, base + from, count)
                }
                start = 0
                scanned -= from
                end = count
            }
            if end == buffer.count {
                // Only reached while the pending line is at most maxLineBytes long, so this always grows.
                let grown = min(buffer.count * 2, maxLineBytes + 1)
                buffer.append(contentsOf: repeatElement(0, count: max(grown - buffer.count, 1)))
            }
        }
        let from = end
        let count = try buffer.withUnsafeMutableBytes { bytes in
            try source.read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[from...]))
        }
        if count == 0 {
            sourceAtEnd = true
        }
        end += count
    }
}

@available(*, unavailable)
extension LineReader: Sendable {}
