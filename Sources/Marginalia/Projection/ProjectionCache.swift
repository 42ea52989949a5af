/// Applies changes to the current annotations through an in-memory copy of the rows they touch, written back
/// once per annotation when flushed: an import of thousands of changes loads each annotation once and writes it
/// once per batch, instead of once per change.
///
/// The rule is the one of `AnnotationRegisters`; only the reads and writes are grouped. Changes must be in the
/// log (inserted) before they are applied, as a create folds the log's changes for its id when some arrived
/// before it.
struct ProjectionCache {
    /// The registers of every annotation touched so far (loaded, or made by a create).
    private var registers: [String: AnnotationRegisters] = [:]
    /// The rows as they stand in the table; nil for an id without a row.
    private var stored: [String: AnnotationRegisters?] = [:]
    /// Ids whose changes wait in the log for their create.
    private var pending: Set<String> = []
    /// Ids to write back, in the order they were first changed.
    private var dirty: [String] = []
    private var isDirty: Set<String> = []

    /// Loads, in two queries, the rows of `ids` not yet known, and which of those without a row already have
    /// changes in the log. Call it before the changes of `ids` are inserted.
    mutating func prepare(_ ids: [String], in store: StoreConnection) throws {
        let unknown = Array(Set(ids.filter { stored[$0] == nil }))
        guard !unknown.isEmpty else { return }
        let list = try Self.jsonList(unknown)
        for id in unknown { stored[id] = .some(nil) }
        let devices = try store.deviceTable()
        try store.db.forEachRow(
            sql: """
                SELECT \(StoreConnection.registerColumns) FROM annotations
                WHERE id IN (SELECT value FROM json_each(?))
                """,
            arguments: [list]
        ) { row in
            let loaded = try AnnotationRegisters(row: row, devices: devices)
            stored[loaded.id] = .some(loaded)
            registers[loaded.id] = loaded
        }
        let missing = unknown.filter { registers[$0] == nil }
        guard !missing.isEmpty else { return }
        try store.db.forEachRow(
            sql: """
                SELECT DISTINCT entity_id FROM changes
                WHERE entity = 'annotation' AND entity_id IN (SELECT value FROM json_each(?))
                """,
            arguments: [try Self.jsonList(missing)]
        ) { row in
            pending.insert(try row.string(0))
        }
    }

    /// Applies one annotation change, already in the log, whose id was prepared.
    ///
    /// - Parameter later: the ids of changes already in the log that are to be applied after this one (a batch
    ///   inserted at once); a create that folds the log leaves them out.
    mutating func apply(_ change: Change, in store: StoreConnection, later: () -> Set<String> = { [] }) throws
        -> ProjectionEffect
    {
        var effect = ProjectionEffect()
        let id = change.entityID
        if var current = registers[id] {
            let wasDeleted = current.deleted
            let before = current
            let outcome = current.apply(change)
            effect.conflicts = MergeConflict.lost(outcome.lostRegisters, by: change, to: current)
            if current != before {
                registers[id] = current
                markDirty(id)
                effect.updated = outcome.won > 0
                effect.deleted = current.deleted && !wasDeleted
            }
            return effect
        }
        guard change.operation == .create else {
            pending.insert(id)
            effect.pending = true
            return effect
        }
        // The first create seen for this id: fold every change the log holds for it when some arrived before
        // their create; otherwise the create alone is the whole history.
        let folded: AnnotationRegisters
        if pending.contains(id) {
            let excluded = later()
            folded = AnnotationRegisters.fold(
                id: id, try store.changes(of: .annotation, id: id).filter { !excluded.contains($0.changeID) })
        } else {
            folded = AnnotationRegisters.fold(id: id, [change])
        }
        pending.remove(id)
        registers[id] = folded
        markDirty(id)
        effect.created = true
        effect.deleted = folded.deleted
        return effect
    }

    /// The registers of `id` as they stand after the changes applied so far, if it has any.
    func registers(of id: String) -> AnnotationRegisters? {
        registers[id]
    }

    /// Writes every changed annotation back, and forgets the cache.
    mutating func flush(to store: StoreConnection) throws {
        try store.saveRegisters(dirty.compactMap { id in
            registers[id].map { (current: $0, previous: stored[id] ?? nil) }
        })
        registers = [:]
        stored = [:]
        pending = []
        dirty = []
        isDirty = []
    }

    private mutating func markDirty(_ id: String) {
        if isDirty.insert(id).inserted { dirty.append(id) }
    }

    /// A JSON array of strings, for `json_each(?)`.
    static func jsonList(_ values: [String]) throws -> String {
        try JSONWriter.encodeString(.array(values.map(JSONValue.string)))
    }
}
