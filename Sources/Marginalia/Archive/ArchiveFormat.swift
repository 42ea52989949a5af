/// The archive format: gzip (windowBits 15+16) of JSON Lines.
///
/// Line 1 is a header; then every change of the log, in the log's own order; then the current state as derived
/// records (annotations by id, then reading positions by document); the last line is a trailer with the
/// count of each record type. Every line ends with "\n". A change record is the core's line of a change
/// (`ChangeCodec`). The JSON Schemas of the records are in `schemas/`.
///
/// Versions. A reader refuses a `formatVersion` newer than it knows before it looks at any other key, and
/// refuses a key it does not know in a version it knows: so any added field is a new version, which older
/// readers refuse with "created by a newer version" rather than misread. Every version stays readable:
/// - 1: the changes ordered by clock (hlc, device, change id).
/// - 2: the header carries `head` (`seq`, `digest`: the head of the writing store's hash chain, see
///   `ChangeDigest`), and the changes are in the log's order (`seq`), so that the changes of a full archive,
///   merged into an empty store, rebuild the same chain up to that head.
/// - 3: a change record carries `madeAt` (ISO 8601, UTC, milliseconds), the wall time of the machine that made
///   it (`Change.wall`), when the change has one.
/// - 4: receipt records (`Receipt.archiveRecord`: how the changes the writing store did not make arrived) follow the
///   header, and a change record that arrived by one names it (`receipt`), so that a restore keeps them; a change
///   may name a device (entity `device`, schema 8).
package enum ArchiveFormat {
    /// The `format` of the header.
    package static let name = "marginalia-archive"
    /// The format version this build writes, and the newest it reads.
    package static let version: Int64 = 4
    /// The first version whose header carries the head of the log's hash chain.
    static let headVersion: Int64 = 2
    /// The first version that carries receipts.
    static let receiptVersion: Int64 = 4
    /// The recommended file extension.
    package static let fileExtension = "jsonl.gz"

    /// The `type` of each record.
    enum RecordType: String, CaseIterable {
        case header
        case receipt
        case change
        case annotation
        case position
        case trailer
    }
}

// MARK: - State records

extension ArchiveFormat {
    /// The state record of an annotation: its `type`, then its JSON form.
    static func record(_ annotation: Annotation) -> JSONValue {
        .object(JSONObject([("type", .string(RecordType.annotation.rawValue))]
            + annotation.jsonMembers.map { ($0.key, $0.value.json) }))
    }

    /// The members an annotation's state record leads with, before the annotation's own: its `type`.
    static let annotationRecordLeading: [(key: String, value: String)] = [("type", RecordType.annotation.rawValue)]

    /// Writes an annotation's state record, the text `record(_:)` gives, with `writer`, without building it.
    static func writeRecord(_ annotation: Annotation, to writer: inout JSONWriter) throws {
        try writer.annotation(annotation, leading: annotationRecordLeading)
    }

    /// The state record of a reading position: its `type`, then its JSON form.
    static func record(_ position: ReadingPosition) -> JSONValue {
        .object(JSONObject([("type", .string(RecordType.position.rawValue))] + position.jsonMembers))
    }
}

extension ReadingPosition {
    /// The reading position as JSON: what `marginalia position --json` prints, and what an archive's state
    /// record holds after its `type`.
    package var json: JSONValue { .object(JSONObject(jsonMembers)) }

    var jsonMembers: [(String, JSONValue)] {
        [
            ("document", .string(document)),
            ("passage", .string(position.passage)),
            ("offset", .int(Int64(position.offset))),
            ("updatedAt", .string(updatedAt.iso8601)),
        ]
    }
}
