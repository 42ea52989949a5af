// MARK: - Change rows

extension Change {
    /// What a statement selects from the log `changes` to read a change, in the order `init(row:)` reads it: the
    /// seven columns as text, exactly as `storedText(fieldsText:)` gives them and the digest covers them, then the
    /// wall time (an integer, NULL for a change recorded without one). The log keeps the clock as an integer
    /// (`HLC.packed`) and the device as its number in `devices` (schema 5); these expressions give back their
    /// text forms.
    ///
    /// A statement names them first, `SELECT \(Change.columns), seq FROM changes …`; a column selected after
    /// them is at index `Change.columnCount`. `hlc` and `device` in the statement's other clauses name the stored
    /// integers, which is what its indexes hold.
    static let columns = """
        change_id, printf('%015d-%05d', hlc / 100000, hlc % 100000), \
        (SELECT id FROM devices WHERE number = device), entity, entity_id, op, fields, wall
        """

    /// `columns` as the log of schema 5 and older holds them: without the wall time. For migrations only.
    static let columnsBeforeWall = """
        change_id, printf('%015d-%05d', hlc / 100000, hlc % 100000), \
        (SELECT id FROM devices WHERE number = device), entity, entity_id, op, fields
        """

    /// The clock order of the log's rows, `ClockStamp`'s: clock, then device id (not the store's own number for
    /// it), then change id. An index on the clock gives the first term; rows on one clock are few.
    static let clockOrder = "hlc, (SELECT id FROM devices WHERE number = device), change_id"

    /// `clockOrder` reversed: newest first.
    static let reverseClockOrder = "hlc DESC, (SELECT id FROM devices WHERE number = device) DESC, change_id DESC"

    /// The columns of `quarantine`, which keeps a change as the text it came as, in the order of `columns`.
    static let quarantineColumns = "change_id, hlc, device, entity, entity_id, op, fields, wall"

    /// How many columns `columns` names.
    static let columnCount = 8

    /// Where each of `columns` is in a row that selects them first.
    enum Column: Int {
        case changeID, hlc, device, entity, entityID, operation, fields, wall
    }

    /// The wall time as the stored text compares it: its milliseconds in decimal, or empty when there is none.
    static func wallText(_ wall: Int64?) -> String {
        wall.map(String.init) ?? ""
    }

    /// Decodes a row that selects `Change.columns` first.
    ///
    /// - Throws: `StoreError.corruptRow` when the stored clock, entity, operation or fields cannot be read.
    init(row: Row) throws {
        // Fields in the canonical form the log holds are read straight from the row's bytes; any other text (a
        // damaged log) by the general reader, which names what is wrong.
        guard let fields = CanonicalFieldsReader.read(row.bytes(at: Column.fields.rawValue)) else {
            try self.init(stored: try Self.storedColumns(in: row))
            return
        }
        let columns = try (0..<Column.fields.rawValue).map { try row.string($0) } + ["", try Self.storedWall(in: row)]
        try self.init(stored: columns, fields: fields)
    }

    /// Reads a change from the text of its columns, in the order of `Change.columns` (`storedColumns(in:)`, the
    /// wall time as `wallText` gives it); the text can be parsed away from the connection that read it.
    ///
    /// - Parameter decoded: the fields, already read from their text (which `columns` then need not hold).
    /// - Throws: `StoreError.corruptRow` when the stored clock, entity, operation or fields cannot be read.
    init(stored columns: [String], fields decoded: ChangeFields? = nil) throws {
        guard columns.count == Self.columnCount else {
            throw StoreError.corruptRow(
                reason: "a change was read with \(columns.count) columns, not \(Self.columnCount)")
        }
        let hlcText = columns[Column.hlc.rawValue]
        let entityText = columns[Column.entity.rawValue]
        let opText = columns[Column.operation.rawValue]
        guard let hlc = HLC(hlcText), let entity = EntityKind(rawValue: entityText),
              let operation = ChangeOperation(rawValue: opText) else {
            throw StoreError.corruptRow(
                reason: "the log holds an unreadable change (\(hlcText) \(entityText) \(opText))")
        }
        let fields: ChangeFields
        if let decoded {
            fields = decoded
        } else {
            do {
                fields = try ChangeFields(json: try JSONParser.parse(columns[Column.fields.rawValue]))
            } catch {
                throw StoreError.corruptRow(reason: "the log holds a change with unreadable fields: \(error)")
            }
        }
        let wallText = columns[Column.wall.rawValue]
        let wall = wallText.isEmpty ? nil : Int64(wallText)
        guard wallText.isEmpty || wall != nil else {
            throw StoreError.corruptRow(reason: "the log holds a change with an unreadable wall time (\(wallText))")
        }
        self.init(changeID: columns[Column.changeID.rawValue], hlc: hlc, device: columns[Column.device.rawValue],
                  entity: entity, entityID: columns[Column.entityID.rawValue], operation: operation, fields: fields,
                  wall: wall)
    }

    /// The text of the columns of a row that selects `Change.columns` first, the wall time as `wallText`.
    static func storedColumns(in row: Row) throws -> [String] {
        try (0..<Column.wall.rawValue).map { try row.string($0) } + [try storedWall(in: row)]
    }

    /// The wall time of a row that selects `Change.columns` first, as `wallText`.
    private static func storedWall(in row: Row) throws -> String {
        row.isNull(Column.wall.rawValue) ? "" : String(try row.int64(Column.wall.rawValue))
    }

    /// The id of the change a row that selects `Change.columns` first holds.
    static func storedID(in row: Row) throws -> String {
        try row.string(Column.changeID.rawValue)
    }

    /// The text of every column after the id, exactly as a row that selects `Change.columns` first holds it:
    /// compared byte for byte with `storedText(fieldsText:)` of a change arriving under the same id.
    static func storedText(in row: Row) throws -> [String] {
        try (Column.hlc.rawValue..<Column.wall.rawValue).map { try row.string($0) } + [try storedWall(in: row)]
    }

    /// The text this change is stored as in every column after the id, its fields as `fieldsText` (index 5) and
    /// its wall time as `wallText` (index 6).
    func storedText(fieldsText: String) -> [String] {
        [hlc.description, device, entity.rawValue, entityID, operation.rawValue, fieldsText, Self.wallText(wall)]
    }

    /// The wall time to bind: its milliseconds, or NULL.
    var wallValue: DatabaseValue { wall.map(DatabaseValue.integer) ?? .null }

    /// The values to bind for `Change.quarantineColumns`, in order, its fields as `fieldsText` (canonical JSON).
    func columnValues(fieldsText: String) -> [DatabaseValue] {
        [.text(changeID), .text(hlc.description), .text(device), .text(entity.rawValue), .text(entityID),
         .text(operation.rawValue), .text(fieldsText), wallValue]
    }

    /// The values to bind for a row of the log, `change_id, hlc, device, entity, entity_id, op, fields, wall`: the
    /// clock as `HLC.packed`, the device by its id (the statement looks its number up in `devices`).
    func logValues(fieldsText: String) -> [DatabaseValue] {
        [.text(changeID), .integer(hlc.packed), .text(device), .text(entity.rawValue), .text(entityID),
         .text(operation.rawValue), .text(fieldsText), wallValue]
    }
}
