/// What one change did to the current tables.
public struct ProjectionEffect: Equatable, Sendable {
    /// The change made a new annotation appear.
    public var created = false
    /// The change altered an existing annotation or position.
    public var updated = false
    /// The change turned an annotation into a tombstone.
    public var deleted = false
    /// Fields that kept a newer value instead of the change's (conflicts resolved by last writer wins).
    public var conflicts = 0
    /// The change refers to an annotation whose create change this store has not seen yet; it waits in the
    /// log and is applied when the create arrives.
    public var pending = false

    public init() {}
}

extension AnnotationStore {
    /// Records a change made on this device now: a fresh timestamp and change id, written to the log and
    /// applied to the current tables. Call it inside a write transaction.
    func record(_ entity: EntityKind, _ entityID: String, _ operation: ChangeOperation,
                _ fields: ChangeFields) throws -> Change {
        // Another process may have written since this one read the clock; the write lock is held, so the
        // log's latest timestamp is final until commit.
        if let stored = try db.text(sql: "SELECT max(hlc) FROM changes").flatMap(HLC.init) {
            clock.observe(stored)
        }
        let change = Change(
            changeID: Identifiers.make(), hlc: clock.tick(), device: deviceID, entity: entity, entityID: entityID,
            operation: operation, fields: fields)
        try insert(change)
        _ = try project(change)
        return change
    }

    /// Appends a change to the log, as it is; `fieldsText` is its canonical fields JSON when already made.
    func insert(_ change: Change, fieldsText: String? = nil) throws {
        try db.execute(
            sql: """
                INSERT INTO changes (change_id, hlc, device, entity, entity_id, op, fields)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [change.changeID, change.hlc.description, change.device, change.entity.rawValue,
                        change.entityID, change.operation.rawValue, try fieldsText ?? change.fields.jsonText()])
    }

    /// Applies a change that is already in the log to the current tables.
    func project(_ change: Change) throws -> ProjectionEffect {
        switch change.entity {
        case .annotation: return try projectAnnotation(change)
        case .position: return try projectPosition(change)
        }
    }

    private func projectAnnotation(_ change: Change) throws -> ProjectionEffect {
        var effect = ProjectionEffect()
        if var registers = try loadRegisters(id: change.entityID) {
            let wasDeleted = registers.deleted
            let before = registers
            let outcome = registers.apply(change)
            effect.conflicts = outcome.lost
            if registers != before {
                try saveRegisters(registers, isNew: false)
                effect.updated = outcome.won > 0
                effect.deleted = registers.deleted && !wasDeleted
            }
            return effect
        }
        guard change.operation == .create else {
            effect.pending = true
            return effect
        }
        // The first create seen for this id: fold every change the log holds for it, including any that
        // arrived before their create.
        let registers = AnnotationRegisters.fold(id: change.entityID, try changes(of: .annotation, id: change.entityID))
        try saveRegisters(registers, isNew: true)
        effect.created = true
        effect.deleted = registers.deleted
        return effect
    }

    private func projectPosition(_ change: Change) throws -> ProjectionEffect {
        var effect = ProjectionEffect()
        guard let position = change.fields.position else { return effect }
        if var register = try loadPosition(document: change.entityID) {
            guard register.apply(change) else {
                effect.conflicts = 1
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
                SELECT change_id, hlc, device, entity, entity_id, op, fields FROM changes
                WHERE entity = ? AND entity_id = ? ORDER BY hlc, device, change_id
                """,
            arguments: [entity.rawValue, id], Change.init(row:))
    }
}

extension Change {
    /// Decodes a row selected as `change_id, hlc, device, entity, entity_id, op, fields`.
    init(row: Row) throws {
        let hlcText = try row.string(1)
        let entityText = try row.string(3)
        let opText = try row.string(5)
        guard let hlc = HLC(hlcText), let entity = EntityKind(rawValue: entityText),
              let operation = ChangeOperation(rawValue: opText) else {
            throw StoreError.invalidChange(
                reason: "the log holds an unreadable change (\(hlcText) \(entityText) \(opText))")
        }
        let fields: ChangeFields
        do {
            fields = try ChangeFields(json: try JSONParser.parse(try row.string(6)))
        } catch {
            throw StoreError.invalidChange(reason: "the log holds a change with unreadable fields: \(error)")
        }
        self.init(changeID: try row.string(0), hlc: hlc, device: try row.string(2), entity: entity,
                  entityID: try row.string(4), operation: operation, fields: fields)
    }
}
