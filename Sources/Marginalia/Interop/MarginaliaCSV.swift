/// Marginalia's own CSV: one row per annotation, deleted ones included, with every field a round trip needs, so
/// that an export of the store's comes back in exactly (same ids, anchors, notes, colours, tags, times, deletions),
/// and a spreadsheet can still read it.
///
///     id,kind,document,start_passage,start_offset,end_passage,end_offset,edition,quote,prefix,suffix,note,
///         color,tags,created,updated,deleted   (one line)
///
/// `tags` is a JSON array of strings; `created` and `updated` are ISO 8601 (UTC); `deleted` is `true` or `false`;
/// an empty `note` or `color` is none. UTF-8 without a byte-order mark, quoted as RFC 4180 says, lines ending with
/// CRLF. Two annotations that share a place are two rows, told apart by their ids.
enum MarginaliaCSV {
    static let columns = ["id", "kind", "document", "start_passage", "start_offset", "end_passage", "end_offset",
                          "edition", "quote", "prefix", "suffix", "note", "color", "tags", "created", "updated",
                          "deleted"]

    /// Whether a first line is this format's header.
    static func looksLike(header: String) -> Bool {
        guard let record = try? CSVRecords.records(header).first else { return false }
        return record.fields == columns
    }

    /// The CSV text of `annotations` (all of them, deleted ones too), in reading order.
    static func render(_ annotations: some Sequence<Annotation>, context: InteropExportContext) throws -> String {
        var out = row(columns)
        for annotation in context.readingOrder(annotations) {
            let anchor = annotation.anchor
            let tags = try JSONWriter.encodeString(.array(annotation.tags.sorted().map(JSONValue.string)))
            out += row([
                annotation.id, annotation.kind.rawValue, anchor.document, anchor.start.passage,
                String(anchor.start.offset), anchor.end.passage, String(anchor.end.offset), anchor.edition,
                anchor.quote, anchor.prefix, anchor.suffix, annotation.note ?? "", annotation.color ?? "", tags,
                Timestamp.iso8601(milliseconds: context.created(annotation)),
                Timestamp.iso8601(milliseconds: context.updated(annotation)), annotation.deleted ? "true" : "false",
            ])
        }
        return out
    }

    private static func row(_ fields: [String]) -> String {
        fields.map(ReadwiseCSVWriter.field).joined(separator: ",") + "\r\n"
    }

    /// The annotations of the file, each carrying its own anchor (`ImportItem.native`).
    /// - Throws: `InteropError` naming the line and the column of a row that cannot be read.
    static func read(_ bytes: [UInt8], file: String) throws -> [ImportItem] {
        let records = try CSVRecords.records(bytes, file: file)
        guard let header = records.first, header.fields == columns else {
            throw InteropError(file: file, line: 1, reason: "the header must be \(columns.joined(separator: ","))")
        }
        return try records.dropFirst().map { try item($0, file: file) }
    }

    private static func item(_ record: CSVRecords.Record, file: String) throws -> ImportItem {
        guard record.fields.count == columns.count else {
            throw InteropError(file: file, line: record.line, reason: "\(record.fields.count) fields; the header "
                + "has \(columns.count)")
        }
        var row: [String: String] = [:]
        for (name, value) in zip(columns, record.fields) { row[name] = value }
        func refuse(_ column: String, _ reason: String) -> InteropError {
            InteropError(file: file, line: record.line, reason: "\(column): \(reason)")
        }
        func offset(_ column: String) throws -> Int {
            guard let value = Int(row[column] ?? ""), value >= 0 else {
                throw refuse(column, "must be a whole number, 0 or more")
            }
            return value
        }
        func time(_ column: String) throws -> Int64 {
            guard let value = Timestamp.parseISO8601(row[column] ?? "") else {
                throw refuse(column, "must be an ISO 8601 time")
            }
            return value
        }
        guard let id = row["id"], !id.isEmpty else { throw refuse("id", "must not be empty") }
        guard let kind = AnnotationKind(rawValue: row["kind"] ?? "") else {
            throw refuse("kind", "must be highlight, note or bookmark")
        }
        guard case .array(let values)? = try? JSONParser.parse(row["tags"] ?? "") else {
            throw refuse("tags", "must be a JSON array of strings")
        }
        var tags: [String] = []
        for value in values {
            guard case .string(let tag) = value else { throw refuse("tags", "must be a JSON array of strings") }
            tags.append(tag)
        }
        guard let deleted = ["true": true, "false": false][row["deleted"] ?? ""] else {
            throw refuse("deleted", "must be true or false")
        }
        let anchor = Anchor(
            document: row["document"] ?? "", start: TextPosition(passage: row["start_passage"] ?? "",
                                                                 offset: try offset("start_offset")),
            end: TextPosition(passage: row["end_passage"] ?? "", offset: try offset("end_offset")),
            quote: row["quote"] ?? "", prefix: row["prefix"] ?? "", suffix: row["suffix"] ?? "",
            edition: row["edition"] ?? "")
        let note = row["note"].flatMap { $0.isEmpty ? nil : $0 }
        let color = row["color"].flatMap { $0.isEmpty ? nil : $0 }
        let created = try time("created")
        return ImportItem(
            format: .csv, kind: kind, title: anchor.document, text: anchor.quote, note: note, date: created,
            color: color, tags: tags, line: record.line,
            native: NativeAnnotation(id: id, anchor: anchor, created: created, modified: try time("updated"),
                                     deleted: deleted))
    }
}
