/// A `ByteSink` that collects everything written to it in memory.
///
/// ```swift
/// let sink = ByteArraySink()
/// let writer = try GzipWriter(sink: sink)
/// try writer.write(Array("{}\n".utf8))
/// try writer.finish()
/// let archive = sink.bytes
/// ```
package final class ByteArraySink: ByteSink {
    /// Everything written so far.
    package private(set) var bytes: [UInt8] = []

    /// Creates an empty sink.
    package init() {}

    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        self.bytes.append(contentsOf: bytes)
    }
}

@available(*, unavailable)
extension ByteArraySink: Sendable {}
