// MARK: - Recording: the one path a change takes into the log and the current tables

extension StoreTransaction {
    /// Records a change made on this device now: a fresh timestamp and change id, written to the log and
    /// applied to the current tables.
    /// - Throws: `StoreError.clockBeyondLog` when the timestamp would be after the latest the log holds.
    @discardableResult
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
        let changeID = Identifiers.make()
        // The wall clock as read for this change: when the person made it. The HLC, which orders it, never goes
        // back, so it can be ahead of this.
        let wall = max(0, wallMilliseconds)
        // Stamped before the clock is noted: a clock after the latest the log holds refuses the write, and notes
        // nothing.
        let hlc = try tick()
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
        if !fresh { try cache.prepare([entityID], in: projection) }
        _ = try cache.apply(change, in: projection)
        let registers = cache.registers(of: entityID)
        // A new annotation's row waits to be written with the transaction's other new ones.
        if fresh, let registers {
            for row in try projection.registerRows([(registers, nil)]) { try deferCreate(row) }
            return (change, registers)
        }
        try cache.flush(to: projection)
        return (change, registers)
    }

    /// Appends a change made on this device to the log, with its canonical fields JSON and its digest.
    func insert(_ change: Change) throws {
        try insert([(change, try change.fields.jsonText())], receipt: nil)
    }

    /// Appends changes to the log (`ChangeLog.append`), each with the receipt it arrived by (nil: made on this
    /// device), and moves the clock past them. Every row the log gains goes through the `ChangeLog`.
    func insert(_ changes: [(change: Change, fieldsText: String)], receipt: Int64?) throws {
        if try log.append(changes, receipt: receipt, knownDevices: state.devices) { state.devices = nil }
        for (change, _) in changes { observe(change.hlc) }
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
        // A device new to the table has a number the transaction's copy of the table lacks.
        if added { state.devices = nil }
        var effect = ProjectionEffect()
        effect.updated = updated
        return effect
    }

    private func projectAnnotation(_ change: Change) throws -> ProjectionEffect {
        var cache = ProjectionCache()
        try cache.prepare([change.entityID], in: projection)
        let effect = try cache.apply(change, in: projection)
        try cache.flush(to: projection)
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
    /// the transaction's knowledge of the newest wall time in its state.
    func noteClock(_ wall: Int64, changeID: String) throws {
        var known: OwnWall? = state.ownWall ?? OwnWall()
        if let warning = try clockNotes.note(wall, changeID: changeID, batch: &known) { warn(warning) }
        state.ownWall = known
    }
}
