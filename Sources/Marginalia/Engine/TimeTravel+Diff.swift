// MARK: - What changed between two moments

extension TimeTravel {
    /// What changed in the annotations between `since` and `until` (milliseconds since 1970; nil: up to now), by
    /// when the changes were made (`Change.madeAt`): the state before every change made at or after `since`,
    /// against the state with every change made before `until` — the changes
    /// `log(LogFilter(since:until:))` lists. Annotations whose changes in between left them as they were are left
    /// out; the rest come in the order of their first change in between.
    func diff(since: Int64, until: Int64? = nil) throws -> [AnnotationDiff] {
        let start = Self.bound(at: since)
        // A change's clock is never behind when it was made: `since` bounds the clock too, which its index serves.
        let ids = try db.fetchAll(
            sql: """
                SELECT entity_id FROM changes
                WHERE entity = 'annotation' AND hlc >= ?1 AND \(ChangeLog.madeAt) >= ?2
                    AND (?3 IS NULL OR \(ChangeLog.madeAt) < ?3)
                GROUP BY entity_id ORDER BY min(hlc), entity_id
                """,
            arguments: [start.packedBound, since, until]) { try $0.string(0) }
        return try ids.compactMap { id in
            let changes = try store.log.changes(of: .annotation, id: id)
            let before = AnnotationRegisters.fold(id: id, changes.filter { $0.madeAt < since }).annotation
            let after = AnnotationRegisters.fold(
                id: id, changes.filter { change in until.map { change.madeAt < $0 } ?? true })
                .annotation
            guard let after else { return nil }
            return AnnotationDiff(before: before, after: after)
        }
    }
}
