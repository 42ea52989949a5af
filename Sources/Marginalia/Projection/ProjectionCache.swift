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
    mutating func prepare(_ ids: [String], in projection: Projection) throws {
        let unknown = Array(Set(ids.filter { stored[$0] == nil }))
        guard !unknown.isEmpty else { return }
        let list = try Self.jsonList(unknown)
        for id in unknown { stored[id] = .some(nil) }
        let devices = try projection.devices([])
        try projection.db.forEachRow(
            sql: """
                SELECT \(Projection.registerColumns) FROM annotations
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
        try projection.db.forEachRow(
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
    mutating func apply(_ change: Change, in projection: Projection, later: () -> Set<String> = { [] }) throws
        -> ProjectionEffect
    {
        let id = change.entityID
        let step = try AnnotationRegisters.project(change, onto: registers[id]) {
            // The first create seen for this id: fold every change the log holds for it when some arrived before
            // their create; otherwise the create alone is the whole history.
            guard pending.contains(id) else { return [change] }
            let excluded = later()
            return try ChangeLog(db: projection.db).changes(of: .annotation, id: id).filter { !excluded.contains($0.changeID) }
        }
        if step.effect.pending { pending.insert(id) }
        if step.effect.created { pending.remove(id) }
        if step.changed, let current = step.registers {
            registers[id] = current
            markDirty(id)
        }
        return step.effect
    }

    /// The registers of `id` as they stand after the changes applied so far, if it has any.
    func registers(of id: String) -> AnnotationRegisters? {
        registers[id]
    }

    /// Writes every changed annotation back, and forgets the cache.
    mutating func flush(to projection: Projection) throws {
        try projection.saveRegisters(dirty.compactMap { id in
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

extension AnnotationRegisters {
    /// One annotation change applied as a merge applies it, to the registers the annotation has so far (nil: no
    /// create seen yet): the registers it leaves (nil while there are none), what it did, and whether the row must
    /// be written. A change before any create waits (`pending`); the first create folds `firstCreate()`, the create
    /// with every change of the annotation that came before it.
    static func project(_ change: Change, onto registers: AnnotationRegisters?,
                        firstCreate: () throws -> [Change]) rethrows
        -> (registers: AnnotationRegisters?, effect: ProjectionEffect, changed: Bool)
    {
        var effect = ProjectionEffect()
        if var current = registers {
            let before = current
            let outcome = current.apply(change)
            effect.conflicts = MergeConflict.lost(outcome.lostRegisters, by: change, to: current)
            guard current != before else { return (current, effect, false) }
            effect.updated = outcome.won > 0
            effect.deleted = current.deleted && !before.deleted
            return (current, effect, true)
        }
        guard change.operation == .create else {
            effect.pending = true
            return (nil, effect, false)
        }
        let folded = fold(id: change.entityID, try firstCreate())
        effect.created = true
        effect.deleted = folded.deleted
        return (folded, effect, true)
    }
}
