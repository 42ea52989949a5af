extension Change {
    /// Checks a change received from another store, as a change: its ids, its clock (one the log can hold,
    /// `HLC.checkStorable`), and its fields for its operation, each value as strictly as the log's own field reader
    /// takes it.
    ///
    /// Every transport hands its changes to the merger as `Change`s; this is the one check they all get.
    /// - Throws: `FieldError` naming the field (`changeId`, `hlc`, `fields.note`, …) and what is wrong.
    func check() throws(FieldError) {
        try Self.checkMachineID(changeID, field: "changeId")
        guard hlc.milliseconds <= Timestamp.latestMilliseconds else {
            throw FieldError(field: "hlc", reason: "must be a clock like 001795954481123-00000, not \"\(hlc)\"")
        }
        try hlc.checkStorable()
        if let wall, wall < 0 || wall > Timestamp.latestMilliseconds {
            throw FieldError(field: "madeAt", reason: "must be a time between 1970 and 9999, not \(wall) ms")
        }
        try Self.checkMachineID(device, field: "device")
        if entity == .annotation || entity == .device {
            try Self.checkMachineID(entityID, field: "entityId")
        } else {
            _ = try FieldReader.identifier(.string(entityID), field: "entityId")
        }
        do {
            // The fields as the log stores them, read back by the log's strict reader: a value a reader would
            // refuse in the log's text is refused here too.
            let stored = try ChangeFields(json: fields.json)
            try stored.validate(for: operation, on: entity)
        } catch {
            throw FieldError(field: error.field.isEmpty ? "fields" : "fields.\(error.field)", reason: error.reason)
        }
    }

    private static func checkMachineID(_ id: String, field: String) throws(FieldError) {
        guard Identifiers.isValidMachineID(id) else {
            throw FieldError(field: field, reason: "must be 1 to 64 letters, digits, '.', '_' or '-', not \"\(id)\"")
        }
    }
}
