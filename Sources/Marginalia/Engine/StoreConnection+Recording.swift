// MARK: - Recording the changes made here: the one path a local change takes into the log and the current tables

extension StoreConnection {
    /// Gives the store a new device id for its future changes, and returns it: changes made under its old id
    /// were found elsewhere (the store was copied to another machine). Call it inside the write transaction; the
    /// caller takes the new id as `deviceID` once that transaction commits.
    func renewDeviceID() throws -> String {
        let renewed = Identifiers.make()
        try db.execute(sql: "UPDATE meta SET value = ? WHERE key = 'device_id'", arguments: [renewed])
        return renewed
    }

    /// Records a change made on this device now: a fresh timestamp and change id, written to the log and
    /// applied to the current tables. Call it inside a write transaction.
    /// - Throws: `StoreError.clockBeyondLog` when the timestamp would be after the latest the log holds.
    func record(_ entity: EntityKind, _ entityID: String, _ operation: ChangeOperation,
                _ fields: ChangeFields) throws -> Change {
        try recordState(entity, entityID, operation, fields).change
    }

    /// Records a change like `record`, and returns the annotation's registers as they now stand (nil for a
    /// reading position). `freshID` says the id was made for this create: it has no row and no earlier changes.
    func recordState(_ entity: EntityKind, _ entityID: String, _ operation: ChangeOperation,
                     _ fields: ChangeFields, freshID: Bool = false) throws
        -> (change: Change, registers: AnnotationRegisters?)
    {
        // Another process may have written since this one read the clock; the write lock is held, so the
        // log's latest timestamp is final until commit.
        if !clockIsCurrent { try observeStoredState() }
        let changeID = Identifiers.make()
        // The wall clock as read for this change: when the person made it. The HLC, which orders it, never goes
        // back, so it can be ahead of this.
        let wall = max(0, clock.wallMilliseconds)
        // Stamped before the clock is noted: a clock after the latest the log holds refuses the write, and notes
        // nothing.
        let hlc = try clock.tick()
        try noteClock(wall, changeID: changeID)
        let change = Change(
            changeID: changeID, hlc: hlc, device: deviceID, entity: entity, entityID: entityID,
            operation: operation, fields: fields, wall: wall)
        try insert(change)
        guard entity == .annotation else {
            _ = try project(change)
            return (change, nil)
        }
        var cache = ProjectionCache()
        // A fresh id has no row and no earlier changes: nothing to load.
        let fresh = freshID && operation == .create
        if !fresh { try cache.prepare([entityID], in: self) }
        _ = try cache.apply(change, in: self)
        let registers = cache.registers(of: entityID)
        // Inside a batch, a new annotation's row waits to be written with the batch's other new ones.
        if fresh, isInBatch, let registers {
            for row in try projection.registerRows([(registers, nil)]) { try deferCreate(row) }
            return (change, registers)
        }
        try cache.flush(to: self)
        return (change, registers)
    }

    /// Appends a change made on this device to the log, with its canonical fields JSON and its digest.
    func insert(_ change: Change) throws {
        try insert([(change, try change.fields.jsonText())], receipt: nil)
    }

    /// Appends changes to the log (`ChangeLog.append`), each with the receipt it arrived by (nil: made on this
    /// device), and moves the clock past them. Every row the log gains goes through the `ChangeLog`; call it
    /// inside a write transaction.
    func insert(_ changes: [(change: Change, fieldsText: String)], receipt: Int64?) throws {
        if try log.append(changes, receipt: receipt, knownDevices: batchState?.devices) { batchState?.devices = nil }
        for (change, _) in changes { clock.observe(change.hlc) }
    }

    /// Applies a change that is already in the log to the current tables.
    func project(_ change: Change) throws -> ProjectionEffect {
        switch change.entity {
        case .annotation: return try projectAnnotation(change)
        case .position: return try projectPosition(change)
        case .device: return try projectDeviceName(change)
        }
    }

    /// Applies a device's naming change to `devices`.
    func projectDeviceName(_ change: Change) throws -> ProjectionEffect {
        let (updated, added) = try DeviceNames(db: db).apply(change)
        // A device new to the table has a number the batch's copy of the table lacks.
        if added { batchState?.devices = nil }
        var effect = ProjectionEffect()
        effect.updated = updated
        return effect
    }

    private func projectAnnotation(_ change: Change) throws -> ProjectionEffect {
        var cache = ProjectionCache()
        try cache.prepare([change.entityID], in: self)
        let effect = try cache.apply(change, in: self)
        try cache.flush(to: self)
        return effect
    }

    func projectPosition(_ change: Change) throws -> ProjectionEffect {
        var effect = ProjectionEffect()
        guard let position = change.fields.position else { return effect }
        if var register = try projection.loadPosition(document: change.entityID) {
            guard register.apply(change) else {
                if change.stamp != register.clock, let lost = MergeConflict.lostPosition(change, to: register.position) {
                    effect.conflicts = [lost]
                }
                return effect
            }
            try projection.savePosition(register)
        } else {
            try projection.savePosition(PositionRegister(document: change.entityID, position: position, clock: change.stamp))
        }
        effect.updated = true
        return effect
    }

    /// Notes a local write about to be stamped with `wall` when the clock is set back (`ClockNotes.note`), keeping
    /// the batch's knowledge of the newest wall time in its state.
    func noteClock(_ wall: Int64, changeID: String) throws {
        var batch = batchState.map { $0.ownWall ?? OwnWall() }
        if let warning = try clockNotes.note(wall, changeID: changeID, batch: &batch) { clockWarnings.append(warning) }
        if batchState != nil { batchState?.ownWall = batch }
    }
}
