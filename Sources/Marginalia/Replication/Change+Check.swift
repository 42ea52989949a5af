extension Change {
    /// Checks a change received from another store, as a change: its ids, its clock (one the log can hold,
    /// `HLC.checkStorable`), and its fields for its operation, each value as strictly as the log's own field reader
    /// takes it.
    ///
    /// Every transport hands its changes to the merger as `Change`s; this is the one check they all get.
    /// - Throws: `FieldError` naming the field (`changeId`, `hlc`, `fields.note`, …) and what is wrong.
    func check() throws(FieldError) {
        try ChangeCodec.checkMachineID(changeID, field: "changeId")
        try ChangeCodec.checkClock(hlc)
        if let wall, wall < 0 || wall > Timestamp.latestMilliseconds {
            throw FieldError(field: "madeAt", reason: "must be a time between 1970 and 9999, not \(wall) ms")
        }
        try ChangeCodec.checkMachineID(device, field: "device")
        try ChangeCodec.checkEntityID(entityID, of: entity)
        try ChangeCodec.checkingFields { () throws(FieldError) in
            // The fields as the log stores them, read back by the log's strict reader: a value a reader would
            // refuse in the log's text is refused here too.
            let stored = try ChangeFields(json: fields.json)
            try stored.validate(for: operation, on: entity)
        }
    }
}
