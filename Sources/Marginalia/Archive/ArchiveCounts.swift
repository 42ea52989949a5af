/// How many records of each type an archive holds: the trailer's counts.
public struct ArchiveCounts: Equatable, Sendable {
    /// Change records.
    public var changes = 0
    /// Annotation state records.
    public var annotations = 0
    /// Reading position state records.
    public var positions = 0

    /// Counts with the given values.
    package init(changes: Int = 0, annotations: Int = 0, positions: Int = 0) {
        self.changes = changes
        self.annotations = annotations
        self.positions = positions
    }

    var trailerJSON: JSONValue {
        .object(JSONObject([
            ("type", .string(ArchiveFormat.RecordType.trailer.rawValue)),
            ("counts", .object(JSONObject([
                ("change", .int(Int64(changes))), ("annotation", .int(Int64(annotations))),
                ("position", .int(Int64(positions))),
            ]))),
        ]))
    }
}
