// MARK: - Annotation rows

extension StoreConnection {
    /// The columns an annotation is read with, in the order `Annotation(row:)` expects, qualified by a table
    /// alias when one is given (`a.id, a.kind, …`).
    static func annotationColumns(of alias: String? = nil) -> String {
        let names = RegisterRow.columns.filter { $0 != "clocks" }
        let qualifier = alias.map { "\($0)." } ?? ""
        return names.map { qualifier + $0 }.joined(separator: ", ")
    }

    /// The annotation columns followed by its clocks, as `AnnotationRegisters(row:)` expects.
    static let registerColumns = annotationColumns() + ", clocks"

    func loadRegisters(id: String) throws -> AnnotationRegisters? {
        let devices = try deviceTable()
        return try db.fetchOne(
            sql: "SELECT \(Self.registerColumns) FROM annotations WHERE id = ?", arguments: [id]
        ) { try AnnotationRegisters(row: $0, devices: devices) }
    }

    /// Writes annotations' registers: a new row for each whose `previous` is nil, else an update of the row that
    /// held `previous`. The notes index is touched only for rows whose quote or note changed.
    ///
    /// One row is written directly. Many rows go first into a temporary staging table (one bound insert each),
    /// and from there into `annotations` in one statement per kind of write: FTS5 writes its pending index data
    /// out at every statement that changes it, so one statement per row would leave one tiny index segment per
    /// annotation to be merged again and again.
    func saveRegisters(_ rows: [(current: AnnotationRegisters, previous: AnnotationRegisters?)]) throws {
        try save(try registerRows(rows))
    }

    /// The rows that write annotations' registers (see `saveRegisters`), their clocks' devices numbered.
    func registerRows(_ rows: [(current: AnnotationRegisters, previous: AnnotationRegisters?)]) throws
        -> [RegisterRow]
    {
        let devices = try deviceTable(naming: rows.lazy.flatMap { $0.current.clocks.values.lazy.map(\.device) })
        return try rows.compactMap { row in try RegisterRow(row.current, previous: row.previous, devices: devices) }
    }

    /// Writes `rows` as `saveRegisters` does: one directly, many through the temporary staging table.
    func save(_ rows: [RegisterRow]) throws {
        if rows.count == 1, let row = rows.first {
            try db.execute(sql: row.sql, arguments: StatementArguments(row.values))
            return
        }
        guard !rows.isEmpty else { return }
        try db.executeScript(sql: """
            CREATE TEMP TABLE IF NOT EXISTS annotation_rows (
                \(RegisterRow.columns.joined(separator: ", ")), write INTEGER
            );
            DELETE FROM temp.annotation_rows;
            """)
        let placeholders = Array(repeating: "?", count: RegisterRow.columns.count + 1).joined(separator: ", ")
        for row in rows {
            try db.execute(sql: "INSERT INTO temp.annotation_rows VALUES (\(placeholders))",
                           arguments: StatementArguments(row.values + [.integer(Int64(row.write.rawValue))]))
        }
        try db.execute(sql: RegisterRow.insertSQL(from: "temp.annotation_rows"))
        try db.execute(sql: RegisterRow.updateSQL(.updateText, from: "temp.annotation_rows"))
        try db.execute(sql: RegisterRow.updateSQL(.updateOther, from: "temp.annotation_rows"))
    }

    /// Whether the quote or the note differ, byte for byte (the index must see exactly the text stored).
    static func textChanged(_ annotation: Annotation, from previous: AnnotationRegisters) -> Bool {
        !annotation.anchor.quote.utf8.elementsEqual((previous.anchor?.quote ?? "").utf8)
            || (annotation.note == nil) != (previous.note == nil)
            || !(annotation.note ?? "").utf8.elementsEqual((previous.note ?? "").utf8)
    }

    // MARK: - Position rows

    func loadPosition(document: String) throws -> PositionRegister? {
        try db.fetchOne(
            sql: "SELECT document, passage, offset, clock FROM positions WHERE document = ?", arguments: [document],
            PositionRegister.init(row:))
    }

    func savePosition(_ register: PositionRegister) throws {
        try db.execute(
            sql: """
                INSERT INTO positions (document, passage, offset, updated_hlc, clock) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (document) DO UPDATE SET
                    passage = excluded.passage, offset = excluded.offset, updated_hlc = excluded.updated_hlc,
                    clock = excluded.clock
                """,
            arguments: [register.document, register.position.passage, register.position.offset,
                        register.clock.hlc.description, register.clock.text])
    }
}

extension Annotation {
    /// Decodes a row selected with `StoreConnection.annotationColumns(of:)`.
    init(row: Row) throws {
        let id = try row.string(0)
        func corrupt(_ what: String) -> StoreError {
            StoreError.corruptRow(reason: "annotation \(id) has an unreadable \(what)")
        }
        guard let kind = AnnotationKind(rawValue: try row.string(1)) else { throw corrupt("kind") }
        guard case .array(let tagValues)? = try? JSONParser.parse(try row.string(14)) else { throw corrupt("tags") }
        let tags = try tagValues.map { value -> String in
            guard case .string(let tag) = value else { throw corrupt("tags") }
            return tag
        }
        guard let created = HLC(packed: try row.int64(16)), let updated = HLC(packed: try row.int64(17)) else {
            throw corrupt("timestamp")
        }
        self.init(
            id: id, kind: kind,
            anchor: Anchor(
                document: try row.string(2),
                start: TextPosition(passage: try row.string(3), offset: try row.int(4)),
                end: TextPosition(passage: try row.string(5), offset: try row.int(6)),
                quote: try row.string(7), prefix: try row.string(8), suffix: try row.string(9),
                edition: try row.string(11)),
            createdEdition: try row.string(10), note: row.optionalString(12), color: row.optionalString(13),
            tags: tags, deleted: try row.bool(15), createdAt: created, updatedAt: updated)
    }
}

extension AnnotationRegisters {
    /// Decodes a row selected with `StoreConnection.registerColumns`: the annotation, then its clocks, their
    /// devices numbered by `devices`.
    init(row: Row, devices: DeviceTable) throws {
        let annotation = try Annotation(row: row)
        self.init(id: annotation.id)
        kind = annotation.kind
        createdEdition = annotation.createdEdition
        anchor = annotation.anchor
        note = annotation.note
        color = annotation.color
        deleted = annotation.deleted
        updatedHLC = annotation.updatedAt
        guard let stored = FieldClocks.decode(Array(row.bytes(at: 18)), devices: devices) else {
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
        write = previous.map { StoreConnection.textChanged(annotation, from: $0) ? .updateText : .updateOther }
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
