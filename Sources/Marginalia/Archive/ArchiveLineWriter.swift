/// Gathers archive lines in a buffer and hands them to the gzip writer in large blocks.
struct ArchiveLineWriter {
    private let gzip: PipelinedGzipWriter
    private var writer = JSONWriter(capacity: 1 << 18)
    private static let flushThreshold = 1 << 18

    init(gzip: PipelinedGzipWriter) {
        self.gzip = gzip
    }

    /// Writes one record and its line feed.
    mutating func write(_ record: JSONValue) throws {
        try writer.value(record)
        try endLine()
    }

    /// Writes a change record straight from a row that selects `Change.columns` first (then its seq, digest and
    /// receipt), copying its stored fields JSON as it is (`ChangeCodec.write(row:receipt:to:)`).
    mutating func writeChange(_ row: Row) throws {
        let receipt = row.optionalInt(Change.columnCount + 2).map(Int64.init)
        try ChangeCodec.write(row: row, receipt: receipt, to: &writer)
        try endLine()
    }

    /// Writes an annotation's state record, the text `ArchiveFormat.record(_:)` gives, straight to the line
    /// (without the JSON tree, whose object is a dictionary built for each of them).
    mutating func writeAnnotation(_ annotation: Annotation) throws {
        try ArchiveFormat.writeRecord(annotation, to: &writer)
        try endLine()
    }

    private mutating func endLine() throws {
        try writer.newline()
        if writer.bytes.count >= Self.flushThreshold { try flush() }
    }

    /// Hands the buffered lines to the gzip writer.
    mutating func flush() throws {
        guard !writer.bytes.isEmpty else { return }
        try gzip.write(writer.bytes)
        writer.reset()
    }
}
