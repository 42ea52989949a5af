/// A change as one JSON line: the one text of a change outside the log, which every adapter writes and reads (an
/// archive's change records, a sync segment's).
///
///     {"type":"change","changeId":"…","hlc":"001795954481123-00000","device":"…","entity":"annotation",
///      "entityId":"…","op":"create","fields":{…},"madeAt":"2026-12-02T01:30:10.123Z","receipt":2}
///
/// The keys come in that order. `fields` is the canonical text of `ChangeFields.json`, the very text the log stores
/// and its digest covers (`ChangeDigest`), so a change read from its line is stored with the digest it had where it
/// was written. `madeAt` (the wall time, `Change.wall`) is there only for a change that has one; `receipt` (the id
/// of the receipt it arrived by in the writing store) only where the format carries receipts and the change
/// arrived by one. Reading is strict: exactly these keys, each value of its type and within its bounds.
package enum ChangeCodec {
    /// The `type` of a change's record.
    static let type = "change"
    /// The keys every change record holds.
    private static let requiredKeys: Set<String> = [
        "type", "changeId", "hlc", "device", "entity", "entityId", "op", "fields",
    ]

    // MARK: - Writing

    /// The record of `change`.
    package static func record(_ change: Change) -> JSONObject {
        JSONObject([
            ("type", .string(type)), ("changeId", .string(change.changeID)),
            ("hlc", .string(change.hlc.description)), ("device", .string(change.device)),
            ("entity", .string(change.entity.rawValue)), ("entityId", .string(change.entityID)),
            ("op", .string(change.operation.rawValue)), ("fields", change.fields.json),
        ] + (change.wall.map { [("madeAt", JSONValue.string(Timestamp.iso8601(milliseconds: $0)))] } ?? []))
    }

    /// Writes the record of the change stored in `row` (which selects `Change.columns` first), the text `record(_:)`
    /// gives for it, straight from the row: its fields copied as the log holds them, without building the change.
    /// - Parameter receipt: the id of the receipt it arrived by, for a format that carries receipts.
    static func write(row: Row, receipt: Int64? = nil, to writer: inout JSONWriter) throws {
        try writer.beginObject()
        try writer.key("type")
        try writer.string(type)
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
        if let receipt {
            try writer.key("receipt")
            try writer.int(receipt)
        }
        try writer.endObject()
    }

    // MARK: - Reading

    /// Reads a change record.
    /// - Parameter receiptAllowed: the format carries receipts, so the record may name one (`receipt(of:)`).
    /// - Throws: `FieldError` naming the first field that is missing, unknown or wrong (`fields.note`, …).
    static func change(from object: JSONObject, receiptAllowed: Bool = false) throws(FieldError) -> Change {
        try FieldReader.checkKeys(object, required: requiredKeys,
                                  optional: receiptAllowed ? ["madeAt", "receipt"] : ["madeAt"])
        let changeID = try machineID(object["changeId"], field: "changeId")
        let hlcText = try FieldReader.string(object["hlc"] ?? .null, field: "hlc")
        guard let hlc = HLC(hlcText) else { throw clockRefusal(hlcText) }
        try checkClock(hlc)
        let device = try machineID(object["device"], field: "device")
        let entityName = try FieldReader.string(object["entity"] ?? .null, field: "entity")
        guard let entity = EntityKind(rawValue: entityName) else {
            throw FieldError(field: "entity",
                             reason: "unknown entity kind \"\(entityName)\" (annotation, position or device)")
        }
        let entityID = try FieldReader.string(object["entityId"] ?? .null, field: "entityId")
        try checkEntityID(entityID, of: entity)
        let opName = try FieldReader.string(object["op"] ?? .null, field: "op")
        guard let operation = ChangeOperation(rawValue: opName) else {
            throw FieldError(field: "op", reason: "unknown operation \"\(opName)\"")
        }
        let fields = try checkingFields { () throws(FieldError) in
            let fields = try ChangeFields(json: object["fields"] ?? .null)
            try fields.validate(for: operation, on: entity)
            return fields
        }
        var wall: Int64?
        if let value = object["madeAt"] {
            let text = try FieldReader.string(value, field: "madeAt")
            guard let milliseconds = Timestamp.parseISO8601(text), milliseconds >= 0,
                  milliseconds <= Timestamp.latestMilliseconds,
                  Timestamp.iso8601(milliseconds: milliseconds) == text else {
                throw FieldError(field: "madeAt",
                                 reason: "must be a UTC time like 2026-12-02T01:30:10.123Z, not \"\(text)\"")
            }
            wall = milliseconds
        }
        return Change(changeID: changeID, hlc: hlc, device: device, entity: entity, entityID: entityID,
                      operation: operation, fields: fields, wall: wall)
    }

    /// The receipt a change record names, if any.
    /// - Throws: `FieldError` for a `receipt` that is not the id of a receipt.
    static func receipt(of object: JSONObject) throws(FieldError) -> Int64? {
        guard let value = object["receipt"] else { return nil }
        guard case .int(let id) = value, id >= 1 else {
            throw FieldError(field: "receipt", reason: "must be the id of a receipt record")
        }
        return id
    }

    // MARK: - Checks

    // The checks of a change's values, whichever way it comes: read from its line here, or handed to the merger as
    // a `Change` (`Change.check`).

    /// Refuses an id that cannot be a change's, a device's or an annotation's (`Identifiers.isValidMachineID`).
    static func checkMachineID(_ id: String, field: String) throws(FieldError) {
        guard Identifiers.isValidMachineID(id) else {
            throw FieldError(field: field, reason: "must be 1 to 64 letters, digits, '.', '_' or '-', not \"\(id)\"")
        }
    }

    /// Refuses a clock after the year 9999, or one the log cannot hold (`HLC.checkStorable`).
    static func checkClock(_ hlc: HLC) throws(FieldError) {
        guard hlc.milliseconds <= Timestamp.latestMilliseconds else { throw clockRefusal(hlc.description) }
        try hlc.checkStorable()
    }

    /// Refuses an entity id that cannot name an entity of its kind: an annotation and a device have machine ids
    /// (`checkMachineID`), a reading position the id of its document.
    static func checkEntityID(_ id: String, of entity: EntityKind) throws(FieldError) {
        if entity == .position {
            _ = try FieldReader.identifier(.string(id), field: "entityId")
        } else {
            try checkMachineID(id, field: "entityId")
        }
    }

    /// What `body` returns, and its refusal of a field as one of the change's `fields` (`fields.note`, …).
    static func checkingFields<Value>(_ body: () throws(FieldError) -> Value) throws(FieldError) -> Value {
        do {
            return try body()
        } catch {
            throw FieldError(field: error.field.isEmpty ? "fields" : "fields.\(error.field)", reason: error.reason)
        }
    }

    /// The id `value` holds, checked as `checkMachineID` checks it.
    static func machineID(_ value: JSONValue?, field: String) throws(FieldError) -> String {
        let id = try FieldReader.string(value ?? .null, field: field)
        try checkMachineID(id, field: field)
        return id
    }

    private static func clockRefusal(_ text: String) -> FieldError {
        FieldError(field: "hlc", reason: "must be a clock like 001795954481123-00000, not \"\(text)\"")
    }
}
