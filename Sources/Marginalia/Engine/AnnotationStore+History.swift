// MARK: - The store as it was, and going back

extension AnnotationStore {
    /// The annotations that matched `filter` at `milliseconds` since 1970 (every change made at or before that
    /// millisecond, by the changes' clocks), replayed from the log, in the order `annotations(matching:)` lists.
    ///
    ///     if let time = Timestamp.parseISO8601("2026-11-24") { print(try store.annotations(asOf: time)) }
    public func annotations(asOf milliseconds: Int64, matching filter: AnnotationFilter = AnnotationFilter()) throws
        -> [Annotation]
    {
        try engine.read { try $0.timeTravel.annotations(asOf: milliseconds, matching: filter) }
    }

    /// The annotation with this id (or unique prefix) as it was at `milliseconds`; nil when it was made later.
    /// - Throws: `MarginaliaError`: `.notFound`, or `.invalidArgument` for an ambiguous prefix.
    public func annotation(id: String, asOf milliseconds: Int64) throws -> Annotation? {
        try engine.read { try $0.timeTravel.annotation(id: id, asOf: milliseconds) }
    }

    /// Searches the notes and quotes of the annotations that were not deleted at `milliseconds`, as
    /// `searchNotes` searches the current ones (with `matchingInflections`, words match by their stems).
    public func searchNotes(_ text: String, asOf milliseconds: Int64, limit: Int = 20,
                            matchingInflections: Bool = true) throws -> [Annotation] {
        try engine.read {
            try $0.timeTravel.searchNotes(text, asOf: milliseconds, limit: limit, matchingInflections: matchingInflections)
        }
    }

    /// What changed in the annotations between `since` and `until` (milliseconds since 1970; nil: up to now): per
    /// annotation, each field before and after — the effect of the changes made (`Change.madeAt`) in between.
    public func diff(since: Int64, until: Int64? = nil) throws -> [AnnotationDiff] {
        try engine.read { try $0.timeTravel.diff(since: since, until: until) }
    }

    /// Every change to one annotation in the order this store took them in, each with the fields it set, the
    /// values they replaced, and, for a change that lost a merge, the change whose value was kept.
    /// - Throws: `MarginaliaError` (`.notFound`).
    public func historyEntries(id: String) throws -> [HistoryEntry] {
        try engine.read { try $0.timeTravel.historyEntries(id: id) }
    }

    /// Sets every field group of an annotation (note, color, tags, deleted, anchor) back to its value right after
    /// `change` (an id or a unique prefix of at least 4 characters), by the clocks, in one new change that merges
    /// like any edit.
    /// - Throws: `MarginaliaError`: `.notFound`, or `.invalidArgument` for a change that is not the annotation's
    ///   or when nothing would change (reason `StoreError.unchanged`: nothing was written).
    @discardableResult
    public func revertAnnotation(id: String, to change: String) throws -> RevertResult {
        try engine.write { try $0.revertAnnotation(id: id, to: change) }
    }
}
