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
    /// receipt), copying its stored fields JSON as it is.
    mutating func writeChange(_ row: Row) throws {
        try writer.beginObject()
        try writer.key("type")
        try writer.string(ArchiveFormat.RecordType.change.rawValue)
        let keys: [(String, Change.Column)] = [("changeId", .changeID), ("hlc", .hlc), ("device", .device),
                                               ("entity", .entity), ("entityId", .entityID), ("op", .operation)]
        for (key, column) in keys {
            try writer.key(key)
            try writer.string(try row.string(column.rawValue))
        }
        try writer.key("fields")
        // The log's fields are canonical JSON written by this code when the change was recorded or imported.
        try writer.rawValue(row.bytes(at: Change.Column.fields.rawValue))
        if !row.isNull(Change.Column.wall.rawValue) {
            try writer.key("madeAt")
            try writer.string(Timestamp.iso8601(milliseconds: try row.int64(Change.Column.wall.rawValue)))
        }
        let receipt = Change.columnCount + 2
        if row.count > receipt, !row.isNull(receipt) {
            try writer.key("receipt")
            try writer.int(try row.int64(receipt))
        }
        try writer.endObject()
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
