extension AnnotationRegisters {
    /// The register's name in `clocks`.
    static func clockName(_ register: Register) -> String {
        switch register {
        case .kind: return "kind"
        case .anchor: return "anchor"
        case .note: return "note"
        case .color: return "color"
        case .deleted: return "deleted"
        case .tag(let name): return "tag:" + name
        }
    }

    /// The register's value.
    func value(of register: Register) -> FieldValue {
        switch register {
        case .kind: return kind.map(FieldValue.kind) ?? .none
        case .anchor: return anchor.map(FieldValue.anchor) ?? .none
        case .note: return note.map(FieldValue.text) ?? .none
        case .color: return color.map(FieldValue.text) ?? .none
        case .deleted: return clocks["deleted"] == nil && kind == nil ? .none : .flag(deleted)
        case .tag(let name): return tags[name].map(FieldValue.flag) ?? .none
        }
    }
}

extension ChangeFields {
    /// The registers these fields set, in the order kind, anchor, note, color, tags (by name), deleted.
    var registers: [Register] {
        var registers: [Register] = []
        if kind != nil { registers.append(.kind) }
        if anchor != nil { registers.append(.anchor) }
        if note != nil { registers.append(.note) }
        if color != nil { registers.append(.color) }
        registers += tags.keys.sorted().map(Register.tag)
        if deleted != nil { registers.append(.deleted) }
        return registers
    }

    /// The value these fields set in `register` (an empty note or color clears it).
    func value(of register: Register) -> FieldValue {
        switch register {
        case .kind: return kind.map(FieldValue.kind) ?? .none
        case .anchor: return anchor.map(FieldValue.anchor) ?? .none
        case .note: return note.flatMap { $0.isEmpty ? nil : FieldValue.text($0) } ?? .none
        case .color: return color.flatMap { $0.isEmpty ? nil : FieldValue.text($0) } ?? .none
        case .deleted: return deleted.map(FieldValue.flag) ?? .none
        case .tag(let name): return tags[name].map(FieldValue.flag) ?? .none
        }
    }
}

extension StoreConnection {
    /// Every change to one annotation in the order this store took them in (for changes made here, the order they
    /// were made), each with the fields it set and the values they replaced.
    ///
    /// The changes are applied one by one by the merge rule (`AnnotationRegisters`), as the store applied them
    /// when each arrived: a change merged from another device whose clock is older than the value it met lost
    /// that field, and says which change's value was kept.
    /// - Throws: `StoreError.annotationNotFound` or `.ambiguousID`.
    func historyEntries(id: String) throws -> [HistoryEntry] {
        // An annotation a partial archive's changes still wait for has changes but no row yet.
        let fullID: String
        do {
            fullID = try resolveAnnotationID(id)
        } catch StoreError.annotationNotFound {
            fullID = id
        }
        let changes = try db.fetchAll(
            sql: """
                SELECT \(Change.columns) FROM changes
                WHERE entity = 'annotation' AND entity_id = ? ORDER BY seq
                """,
            arguments: [fullID], Change.init(row:))
        guard !changes.isEmpty else { throw StoreError.annotationNotFound(id: id) }
        var registers = AnnotationRegisters(id: fullID)
        return changes.map { change in
            let before = registers
            registers.apply(change)
            let fields = change.fields.registers.map { register in
                let name = AnnotationRegisters.clockName(register)
                let taken = registers.clocks[name] == change.stamp
                return FieldTransition(
                    register: register, previous: before.value(of: register),
                    value: change.fields.value(of: register),
                    keptBy: taken ? nil : registers.clocks[name]?.changeID)
            }
            return HistoryEntry(change: change, fields: fields)
        }
    }
}
