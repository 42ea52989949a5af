/// The current tables: each annotation's registers as its `annotations` row, each document's reading position as its
/// `positions` row. The change log is the truth; these rows are what folding it gives (`AnnotationRegisters`), kept
/// so that reads need not fold.
///
///     let registers = try store.projection.loadRegisters(id: id)
///     try store.projection.saveRegisters([(current: folded, previous: registers)])
struct Projection {
    /// The connection the rows are read and written on.
    let db: any Database
    /// The devices table that numbers the devices of clocks, naming at least the devices given (a batch reads it
    /// once per transaction: `StoreTransaction.deviceTable(naming:)`).
    let devices: (_ naming: [String]) throws -> DeviceTable

    /// The columns an annotation is read with, in the order `Annotation(row:)` expects, qualified by a table
    /// alias when one is given (`a.id, a.kind, …`).
    static func annotationColumns(of alias: String? = nil) -> String {
        let names = RegisterRow.columns.filter { $0 != "clocks" }
        let qualifier = alias.map { "\($0)." } ?? ""
        return names.map { qualifier + $0 }.joined(separator: ", ")
    }

    /// The annotation columns followed by its clocks, as `AnnotationRegisters(row:)` expects.
    static let registerColumns = annotationColumns() + ", clocks"

    /// An annotation's registers as its row holds them; nil when it has no row.
    func loadRegisters(id: String) throws -> AnnotationRegisters? {
        let devices = try devices([])
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
        let devices = try devices(rows.flatMap { $0.current.clocks.values.map(\.device) })
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

    /// A document's reading position as its row holds it; nil when it has none.
    func loadPosition(document: String) throws -> PositionRegister? {
        try db.fetchOne(
            sql: "SELECT document, passage, offset, clock FROM positions WHERE document = ?", arguments: [document],
            PositionRegister.init(row:))
    }

    /// Writes a document's reading position, a new row or over the old one.
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
