extension Annotation {
    /// Decodes a row selected with `Projection.annotationColumns(of:)`.
    init(row: Row) throws {
        try self.init(row: row, from: 0)
    }

    /// Decodes a row that selects `Projection.annotationColumns(of:)` from its column `first` on.
    init(row: Row, from first: Int) throws {
        func text(_ column: Int) throws -> String { try row.string(first + column) }
        func int(_ column: Int) throws -> Int { try row.int(first + column) }
        let id = try text(0)
        func corrupt(_ what: String) -> StoreError {
            StoreError.corruptRow(reason: "annotation \(id) has an unreadable \(what)")
        }
        guard let kind = AnnotationKind(rawValue: try text(1)) else { throw corrupt("kind") }
        guard case .array(let tagValues)? = try? JSONParser.parse(try text(14)) else { throw corrupt("tags") }
        let tags = try tagValues.map { value -> String in
            guard case .string(let tag) = value else { throw corrupt("tags") }
            return tag
        }
        guard let created = HLC(packed: try row.int64(first + 16)),
              let updated = HLC(packed: try row.int64(first + 17)) else {
            throw corrupt("timestamp")
        }
        self.init(
            id: id, kind: kind,
            anchor: Anchor(
                document: try text(2),
                start: TextPosition(passage: try text(3), offset: try int(4)),
                end: TextPosition(passage: try text(5), offset: try int(6)),
                quote: try text(7), prefix: try text(8), suffix: try text(9),
                edition: try text(11)),
            createdEdition: try text(10), note: row.optionalString(first + 12), color: row.optionalString(first + 13),
            tags: tags, deleted: try row.bool(first + 15), createdAt: created, updatedAt: updated)
    }
}

extension AnnotationRegisters {
    /// Decodes a row selected with `Projection.registerColumns`, from its column `first` on: the annotation, then
    /// its clocks, their devices numbered by `devices`.
    init(row: Row, devices: DeviceTable, from first: Int = 0) throws {
        let annotation = try Annotation(row: row, from: first)
        self.init(id: annotation.id)
        kind = annotation.kind
        createdEdition = annotation.createdEdition
        anchor = annotation.anchor
        note = annotation.note
        color = annotation.color
        deleted = annotation.deleted
        updatedHLC = annotation.updatedAt
        guard let stored = FieldClocks.decode(Array(row.bytes(at: first + 18)), devices: devices) else {
            throw StoreError.corruptRow(reason: "annotation \(annotation.id) has unreadable clocks")
        }
        clocks = stored
        for name in stored.keys where name.hasPrefix("tag:") { tags[String(name.dropFirst(4))] = false }
        for tag in annotation.tags { tags[tag] = true }
    }

}

extension PositionRegister {
    init(row: Row) throws {
        let document = try row.string(0)
        guard let clock = ClockStamp(text: try row.string(3)) else {
            throw StoreError.corruptRow(reason: "reading position of \(document) has an unreadable clock")
        }
        self.init(document: document, position: TextPosition(passage: try row.string(1), offset: try row.int(2)),
                  clock: clock)
    }
}

/// One annotation's registers as the values of an `annotations` row, and how the row is written.
struct RegisterRow {
    enum Write: Int {
        /// A new row.
        case insert = 0
        /// An update that changes the quote or the note: the notes index follows.
        case updateText = 1
        /// Any other update: the notes index is left alone.
        case updateOther = 2
    }

    /// The columns of `annotations`, in the order of `values`.
    static let columns = [
        "id", "kind", "document", "start_passage", "start_offset", "end_passage", "end_offset", "quote", "prefix",
        "suffix", "created_edition", "anchor_edition", "note", "color", "tags", "deleted", "created_hlc",
        "updated_hlc", "clocks",
    ]
    /// The columns an update without text leaves out: setting them fires the trigger that keeps `notes_fts` in
    /// step; without them in SET, "AFTER UPDATE OF quote, note" does not fire.
    /// https://www.sqlite.org/lang_createtrigger.html
    private static let textColumns: Set<String> = ["quote", "note"]

    let write: Write
    let values: [DatabaseValue]

    /// Nil for registers that hold no annotation yet (changes waiting for their create).
    init?(_ current: AnnotationRegisters, previous: AnnotationRegisters?, devices: DeviceTable) throws {
        guard let annotation = current.annotation else { return nil }
        let anchor = annotation.anchor
        write = previous.map { Projection.textChanged(annotation, from: $0) ? .updateText : .updateOther }
            ?? .insert
        let arguments: StatementArguments = [
            annotation.id, annotation.kind.rawValue, anchor.document, anchor.start.passage, anchor.start.offset,
            anchor.end.passage, anchor.end.offset, anchor.quote, anchor.prefix, anchor.suffix,
            annotation.createdEdition, anchor.edition, annotation.note, annotation.color,
            annotation.tags.isEmpty ? "[]" : try JSONWriter.encodeString(.array(annotation.tags.map { .string($0) })),
            annotation.deleted,
            annotation.createdAt.packed, annotation.updatedAt.packed,
        ]
        values = arguments.values + [.blob(try FieldClocks.encode(current.clocks, devices: devices))]
    }

    /// The statement that writes this row by itself, from `values`.
    var sql: String {
        switch write {
        case .insert: Self.insertOne
        case .updateText: Self.updateOneWithText
        case .updateOther: Self.updateOneWithoutText
        }
    }

    // Made once: a local write runs one of them for each change.
    private static let insertOne = insertSQL(from: nil)
    private static let updateOneWithText = updateSQL(.updateText)
    private static let updateOneWithoutText = updateSQL(.updateOther)

    /// Inserts one row from bound values (`table` nil), or every staged row of `table` marked `insert`.
    static func insertSQL(from table: String?) -> String {
        let names = columns.joined(separator: ", ")
        guard let table else {
            let placeholders = columns.map { _ in "?" }.joined(separator: ", ")
            return "INSERT INTO main.annotations (\(names)) VALUES (\(placeholders))"
        }
        return "INSERT INTO main.annotations (\(names)) SELECT \(names) FROM \(table) "
            + "WHERE write = \(Write.insert.rawValue)"
    }

    /// Updates one row from bound values in the order of `values` (`table` nil), or every staged row of `table`
    /// marked `write`.
    static func updateSQL(_ write: Write, from table: String? = nil) -> String {
        // Every column but the id (the first), by its number in `columns`.
        let set = columns.enumerated().dropFirst().filter { write == .updateText || !textColumns.contains($0.element) }
        guard let table else {
            return "UPDATE main.annotations SET "
                + set.map { "\($0.element) = ?\($0.offset + 1)" }.joined(separator: ", ") + " WHERE id = ?1"
        }
        return "UPDATE main.annotations SET " + set.map { "\($0.element) = r.\($0.element)" }.joined(separator: ", ")
            + " FROM \(table) AS r WHERE r.write = \(write.rawValue) AND annotations.id = r.id"
    }
}
