// MARK: - The one replay of the log

extension Projection {
    /// Folds every annotation's changes made before `bound`'s millisecond (nil: every change), entity by entity, and
    /// hands each annotation that existed by then to `body`, in no particular order.
    ///
    /// The rule is `AnnotationRegisters`', the one the current tables are kept by: the state at a time is the fold
    /// of the changes made by then. Memory stays bounded by one annotation's changes.
    func replayAnnotations(before bound: HLC?, _ body: (Annotation) throws -> Void) throws {
        try foldEachAnnotation(before: bound) { _, _, fold in
            if let annotation = fold.annotation { try body(annotation) }
        }
    }

    /// The one replay of the log, annotation by annotation: streams every annotation change with a clock below
    /// `bound` (nil: every change) in entity order, and hands each annotation's id, its changes (in the log's
    /// order) and their fold by `AnnotationRegisters`' rule, the one the current tables are kept by. Memory stays
    /// bounded by one annotation's changes.
    ///
    /// With `rejected`, a change that cannot be read, or whose fields do not fit its operation, is handed to it and
    /// left out of the fold (as `verify` reports damage); without, it throws.
    func foldEachAnnotation(
        before bound: HLC? = nil, rejected: ((Row, any Error) -> Void)? = nil,
        _ body: (_ id: String, _ changes: [Change], _ fold: AnnotationRegisters) throws -> Void
    ) throws {
        var currentID: String?
        var pending: [Change] = []
        func finish() throws {
            guard let id = currentID else { return }
            try body(id, pending, AnnotationRegisters.fold(id: id, pending))
        }
        // changes_by_entity (entity_id) gives the order; the clock bound is checked row by row.
        try db.forEachRow(
            sql: """
                SELECT \(Change.columns) FROM changes
                WHERE entity = 'annotation' AND (?1 IS NULL OR \(ChangeLog.madeAt) < ?1) ORDER BY entity_id
                """,
            arguments: [bound?.milliseconds]
        ) { row in
            let change: Change
            if let rejected {
                do {
                    change = try Change(row: row)
                    try change.fields.validate(for: change.operation, on: change.entity)
                } catch {
                    rejected(row, error)
                    return
                }
            } else {
                change = try Change(row: row)
            }
            if change.entityID != currentID {
                try finish()
                currentID = change.entityID
                pending = []
            }
            pending.append(change)
        }
        try finish()
    }
}
