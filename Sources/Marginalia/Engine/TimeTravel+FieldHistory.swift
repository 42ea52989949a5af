// MARK: - An annotation's history, field by field

extension TimeTravel {
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
            fullID = try store.resolveAnnotationID(id)
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
        return HistoryEntry.replay(changes, id: fullID)
    }
}

extension HistoryEntry {
    /// The entries of one annotation's changes, given in the order the store took them in: each applied by the
    /// merge rule (`AnnotationRegisters`) to the registers the changes before it left. `registers` ends as the
    /// state they make.
    static func replay(_ changes: [Change], id: String) -> [HistoryEntry] {
        var registers = AnnotationRegisters(id: id)
        return replay(changes, into: &registers)
    }

    /// `replay(_:id:)` into registers the caller keeps, to read the state the changes make.
    static func replay(_ changes: [Change], into registers: inout AnnotationRegisters) -> [HistoryEntry] {
        changes.map { change in
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
