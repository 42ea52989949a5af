// MARK: - Observing values

extension AnnotationStore {
    /// The annotations that match `filter`, now and after every commit that changes them: the list a screen shows.
    ///
    /// The first value is the annotations as they are; then a new value comes after each commit (this store's
    /// own, a merge, an import, a restore, another process's write to the file) that changed the list, never the
    /// same list twice in a row. A commit is read again only when it touched an annotation in the list, or one
    /// that matches `filter` now, or replaced the log: commits elsewhere cost one small query and deliver nothing.
    ///
    ///     for try await annotations in store.observeAnnotations(matching: AnnotationFilter(passage: passage)) {
    ///         model.annotations = annotations
    ///     }
    ///
    /// The order is `annotations(matching:)`'s; attaching other content is no commit, so the list delivered last
    /// keeps its order until the next value. Reads run on the store's readers, on a thread of their own. The stream
    /// finishes when the store is closed; cancelling the consuming task stops it and leaves the store's events.
    ///
    /// - Throws: (from the stream) the `MarginaliaError` of a read that failed, which ends it.
    public func observeAnnotations(matching filter: AnnotationFilter = AnnotationFilter())
        -> AsyncThrowingStream<[Annotation], Error>
    {
        StoreValueObservation(
            fetch: { try $0.annotations(matching: filter) },
            mayChange: { event, annotations, connection in
                try Self.annotationsMayChange(after: event, annotations, matching: filter, connection)
            }
        ).values(in: self)
    }

    /// The reading position in `document` (nil while none is set), now and after every commit that changes it.
    ///
    ///     for try await position in store.observePosition(document: book) {
    ///         model.resume = position?.position
    ///     }
    ///
    /// Delivered, finished and cancelled as `observeAnnotations(matching:)`'s values are.
    public func observePosition(document: String) -> AsyncThrowingStream<ReadingPosition?, Error> {
        StoreValueObservation(
            fetch: { try $0.position(document: document) },
            mayChange: { event, _, _ in event.logReplaced || event.positionDocuments.contains(document) }
        ).values(in: self)
    }

    /// Whether the commit `event` may have changed `annotations`, the list that matched `filter`: it replaced the
    /// log, touched an annotation of the list, or touched one that matches the filter now (read in `connection`).
    static func annotationsMayChange(after event: StoreEvent, _ annotations: [Annotation],
                                     matching filter: AnnotationFilter, _ connection: StoreConnection) throws
        -> Bool
    {
        if event.logReplaced { return true }
        guard !event.annotationIDs.isEmpty else { return false }
        let listed = Set(annotations.map(\.id))
        if !event.annotationIDs.isDisjoint(with: listed) { return true }
        return try connection.anyAnnotation(among: event.annotationIDs, matching: filter)
    }
}
