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
    func foldEachAnnotation(
        before bound: HLC? = nil,
        _ body: (_ id: String, _ changes: [Change], _ fold: AnnotationRegisters) throws -> Void
    ) throws {
        // changes_by_entity (entity_id) gives the order; the clock bound is checked row by row.
        try foldEach(
            sql: """
                SELECT \(Change.columns) FROM changes
                WHERE entity = 'annotation' AND (?1 IS NULL OR \(ChangeLog.madeAt) < ?1) ORDER BY entity_id
                """,
            arguments: [bound?.milliseconds], rejected: nil, stored: nil
        ) { id, changes, fold, _ in try body(id, changes, fold) }
    }

    /// The replay `verify` compares with the current tables: `foldEachAnnotation` over every change, each
    /// annotation handed with its current row too (nil: it has none), which the statement that reads its changes
    /// joins to them, instead of a query per annotation.
    ///
    /// A change that cannot be read, or whose fields do not fit its operation, is handed to `rejected` and left
    /// out of the fold (as `verify` reports damage).
    func foldEachAnnotationWithRow(
        rejected: @escaping (Row, any Error) -> Void,
        _ body: (_ id: String, _ changes: [Change], _ fold: AnnotationRegisters, _ stored: AnnotationRegisters?)
            throws -> Void
    ) throws {
        let devices = try devices([])
        let first = Change.columnCount
        // The same scan of changes_by_entity as `foldEachAnnotation`, each row joined to its annotation's row by
        // the unique index on annotations.id (NULLs when there is none).
        try foldEach(
            sql: """
                SELECT \(Change.columns), \(Self.annotationColumns(of: "a")), a.clocks FROM changes c
                LEFT JOIN annotations a ON a.id = c.entity_id
                WHERE c.entity = 'annotation' ORDER BY c.entity_id
                """,
            arguments: [], rejected: rejected,
            stored: { row in
                row.isNull(first) ? nil : try AnnotationRegisters(row: row, devices: devices, from: first)
            },
            body)
    }

    /// Streams the annotation changes `sql` selects (`Change.columns` first, in entity order) and folds them
    /// entity by entity; `stored` reads the current row from an entity's first row that is read.
    private func foldEach(
        sql: String, arguments: StatementArguments, rejected: ((Row, any Error) -> Void)?,
        stored: ((Row) throws -> AnnotationRegisters?)?,
        _ body: (_ id: String, _ changes: [Change], _ fold: AnnotationRegisters, _ stored: AnnotationRegisters?)
            throws -> Void
    ) throws {
        var currentID: String?
        var currentRow: AnnotationRegisters?
        var pending: [Change] = []
        func finish() throws {
            guard let id = currentID else { return }
            try body(id, pending, AnnotationRegisters.fold(id: id, pending), currentRow)
        }
        try db.forEachRow(sql: sql, arguments: arguments) { row in
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
                currentRow = try stored?(row)
                pending = []
            }
            pending.append(change)
        }
        try finish()
    }
}
