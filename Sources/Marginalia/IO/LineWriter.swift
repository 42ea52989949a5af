/// Gathers JSON lines in one buffer and hands them on in large blocks: a gzip writer then gets one call a block,
/// not one a line. `LineReader` reads them back.
///
/// A line is what `write(_:)` or `writeLine(_:)` writes, then "\n".
///
/// ```swift
/// var lines = LineWriter { block in try gzip.write(block) }
/// try lines.write(header.json)
/// try lines.writeLine { writer in try ChangeCodec.write(row: row, to: &writer) }
/// try lines.flush()
/// ```
package struct LineWriter {
    private var writer: JSONWriter
    private let blockSize: Int
    private let output: ([UInt8]) throws -> Void

    /// Prepares to write lines to `output`.
    /// - Parameters:
    ///   - blockSize: how many bytes gather before they are handed on (a block may be one line longer).
    ///   - output: takes each block, in order.
    package init(blockSize: Int = 1 << 18, output: @escaping ([UInt8]) throws -> Void) {
        writer = JSONWriter(capacity: blockSize)
        self.blockSize = blockSize
        self.output = output
    }

    /// Writes `value` as one line.
    package mutating func write(_ value: JSONValue) throws {
        try writer.value(value)
        try endLine()
    }

    /// Writes one line: what `body` writes (one complete JSON value), then "\n".
    package mutating func writeLine(_ body: (inout JSONWriter) throws -> Void) throws {
        try body(&writer)
        try endLine()
    }

    /// Hands the lines gathered so far to the output.
    package mutating func flush() throws {
        guard !writer.bytes.isEmpty else { return }
        try output(writer.bytes)
        writer.reset()
    }

    private mutating func endLine() throws {
        try writer.newline()
        if writer.bytes.count >= blockSize { try flush() }
    }
}
