/// What one change did to the current tables.
public struct ProjectionEffect: Equatable, Sendable {
    /// The change made a new annotation appear.
    public var created = false
    /// The change altered an existing annotation or position.
    public var updated = false
    /// The change turned an annotation into a tombstone.
    public var deleted = false
    /// Fields that kept a newer value instead of the change's (conflicts resolved by last writer wins).
    public var conflicts: [MergeConflict] = []
    /// The change refers to an annotation whose create change this store has not seen yet; it waits in the
    /// log and is applied when the create arrives.
    public var pending = false

    /// An effect of nothing: no row created, altered or deleted.
    package init() {}
}

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
        try noteClockIfFarOff(changeID: changeID)
        let change = Change(
            changeID: changeID, hlc: clock.tick(), device: deviceID, entity: entity, entityID: entityID,
            operation: operation, fields: fields)
        try insert(change)
        guard entity == .annotation else {
            _ = try projectPosition(change)
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
            for row in try registerRows([(registers, nil)]) { try deferCreate(row) }
            return (change, registers)
        }
        try cache.flush(to: self)
        return (change, registers)
    }

    /// Appends a change made on this device to the log, with its canonical fields JSON and its digest.
    func insert(_ change: Change) throws {
        try insert([(change, try change.fields.jsonText())], receipt: nil)
    }

    /// Appends changes to the log, in order, each with its canonical fields JSON, its digest (which chains it to
    /// the row before, see `ChangeDigest`) and the receipt it arrived by (nil: made on this device). Every row the
    /// log gains goes through here; call it inside a write transaction.
    ///
    /// A device seen for the first time gets its number in `devices` here, in the same transaction. Many rows are
    /// first put in a temporary staging table, one bound insert each, then copied in one statement.
    func insert(_ changes: [(change: Change, fieldsText: String)], receipt: Int64?) throws {
        guard !changes.isEmpty else { return }
        var digest = try logHead().digest
        var rows: [[DatabaseValue]] = []
        rows.reserveCapacity(changes.count)
        var devices: Set<String> = []
        for (change, fields) in changes {
            digest = try ChangeDigest.next(after: digest, change: change, fieldsText: fields)
            rows.append(change.logValues(fieldsText: fields)
                + [.text(digest), receipt.map(DatabaseValue.integer) ?? .null])
            devices.insert(change.device)
        }
        let known = batchState?.devices
        for device in devices.sorted() where !(known?.contains(device) ?? false) {
            try db.execute(sql: "INSERT INTO devices (id) VALUES (?) ON CONFLICT (id) DO NOTHING", arguments: [device])
            batchState?.devices = nil
        }
        let columns = "change_id, hlc, device, entity, entity_id, op, fields, digest, receipt"
        if rows.count == 1 {
            try db.execute(
                sql: """
                    INSERT INTO changes (\(columns))
                    VALUES (?, ?, (SELECT number FROM devices WHERE id = ?), ?, ?, ?, ?, ?, ?)
                    """,
                arguments: StatementArguments(rows[0]))
        } else {
            try db.executeScript(sql: """
                CREATE TEMP TABLE IF NOT EXISTS change_rows (
                    change_id TEXT, hlc INTEGER, device TEXT, entity TEXT, entity_id TEXT, op TEXT, fields TEXT,
                    digest TEXT, receipt INTEGER
                );
                DELETE FROM temp.change_rows;
                """)
            for row in rows {
                try db.execute(
                    sql: "INSERT INTO temp.change_rows (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    arguments: StatementArguments(row))
            }
            try db.execute(sql: """
                INSERT INTO main.changes (\(columns))
                SELECT r.change_id, r.hlc, d.number, r.entity, r.entity_id, r.op, r.fields, r.digest, r.receipt
                FROM temp.change_rows AS r JOIN main.devices AS d ON d.id = r.device ORDER BY r.rowid
                """)
        }
        for (change, _) in changes { clock.observe(change.hlc) }
    }

    /// Applies a change that is already in the log to the current tables.
    func project(_ change: Change) throws -> ProjectionEffect {
        switch change.entity {
        case .annotation: return try projectAnnotation(change)
        case .position: return try projectPosition(change)
        }
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
        if var register = try loadPosition(document: change.entityID) {
            guard register.apply(change) else {
                if change.stamp != register.clock, let lost = MergeConflict.lostPosition(change, to: register.position) {
                    effect.conflicts = [lost]
                }
                return effect
            }
            try savePosition(register)
        } else {
            try savePosition(PositionRegister(document: change.entityID, position: position, clock: change.stamp))
        }
        effect.updated = true
        return effect
    }

    /// Every change the log holds for one entity, oldest first by clock.
    func changes(of entity: EntityKind, id: String) throws -> [Change] {
        try db.fetchAll(
            sql: """
                SELECT \(Change.columns) FROM changes
                WHERE entity = ? AND entity_id = ? ORDER BY \(Change.clockOrder)
                """,
            arguments: [entity.rawValue, id], Change.init(row:))
    }
}
