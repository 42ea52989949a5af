// MARK: - Writing annotations and positions

extension AnnotationStore {
    /// Makes a highlight, note or bookmark at `request`, checked against the attached content; the change and the
    /// new current row are written in one transaction.
    ///
    /// - Parameters:
    ///   - note: the note text (for a bookmark, its title).
    /// - Throws: `MarginaliaError` (`.invalidArgument`) for an anchor that does not fit the content or an invalid
    ///   note, color or tag.
    @discardableResult
    public func createAnnotation(_ kind: AnnotationKind, at request: AnchorRequest, note: String? = nil,
                                 color: String? = nil, tags: [String] = []) throws -> Annotation {
        try engine.write { try $0.createAnnotation(kind, at: request, note: note, color: color, tags: tags) }
    }

    /// Sets the note or color (an empty string clears it), adds and removes tags (a removed tag matches however its
    /// case and diacritics are written).
    /// - Throws: `MarginaliaError`: `.notFound`, or `.invalidArgument` when the annotation is deleted, or when
    ///   nothing would change (reason `StoreError.unchanged`: nothing was written).
    @discardableResult
    public func editAnnotation(id: String, note: String? = nil, color: String? = nil, addTags: [String] = [],
                               removeTags: [String] = []) throws -> Annotation {
        try engine.write {
            try $0.editAnnotation(id: id, note: note, color: color, addTags: addTags, removeTags: removeTags)
        }
    }

    /// Deletes an annotation: it becomes a tombstone, still listed with deleted ones and kept in history.
    /// - Throws: `MarginaliaError`: `.notFound`, or `.invalidArgument` when it is already deleted.
    @discardableResult
    public func deleteAnnotation(id: String) throws -> Annotation {
        try engine.write { try $0.deleteAnnotation(id: id) }
    }

    /// Brings a deleted annotation back.
    /// - Throws: `MarginaliaError`: `.notFound`, or `.invalidArgument` when it is not deleted.
    @discardableResult
    public func undeleteAnnotation(id: String) throws -> Annotation {
        try engine.write { try $0.undeleteAnnotation(id: id) }
    }

    /// Anchors an annotation again, by hand (a `reattach` change), wherever it stands now.
    @discardableResult
    public func reattachAnnotation(id: String, at request: AnchorRequest) throws -> Annotation {
        try engine.write { try $0.anchoring.reattachAnnotation(id: id, at: request) }
    }

    /// Sets the reading position in `document`, checked against the attached content.
    @discardableResult
    public func setPosition(document: String, at position: TextPosition) throws -> ReadingPosition {
        try engine.write { try $0.setPosition(document: document, at: position) }
    }

    /// Checks every annotation (deleted ones too) against the attached edition; with `reanchor`, records each move
    /// as a `reanchor` change and each intact annotation not yet anchored on this edition as a `confirm` change,
    /// all in one transaction, and remembers the content as reconciled (its path too, with `recordingPath`).
    /// Without `reanchor` nothing is written.
    ///
    /// - Parameter allowOlder: re-anchor even onto an edition older than one the annotations were reconciled with
    ///   or anchored on, or onto content that shares no passage with them.
    /// - Throws: `MarginaliaError` (`.invalidArgument`) for such content without `allowOlder`.
    public func reconcileAnchors(reanchor: Bool = false, allowOlder: Bool = false, recordingPath: Bool = true) throws
        -> ReconciliationReport
    {
        try reconcileAnchors(reanchor: reanchor, allowOlder: allowOlder, recordingPath: recordingPath, with: nil)
    }

    /// `reconcileAnchors`, with `progress` in place of the store-wide handler when given. The checks (reading
    /// the content, matching quotes) run on a reader, so that writes go on meanwhile; the writer only records the
    /// changes, checking again under its lock if anything was written in between.
    func reconcileAnchors(reanchor: Bool, allowOlder: Bool, recordingPath: Bool, with progress: ProgressHandler?)
        throws -> ReconciliationReport
    {
        guard reanchor else {
            return try engine.read(progress: progress) {
                try $0.anchoring.reconcileAnchors(reanchor: false, allowOlder: allowOlder)
            }
        }
        let plan = try engine.read(progress: progress) { try $0.anchoring.planReanchoring(allowOlder: allowOlder) }
        return try engine.write(progress: progress) {
            try $0.anchoring.applyReanchoring(plan, allowOlder: allowOlder, recordingPath: recordingPath)
        }
    }
}

// MARK: - Reading annotations and positions

extension AnnotationStore {
    /// The annotation with this id, or with this unique id prefix (at least 4 characters), deleted or not.
    /// - Throws: `MarginaliaError`: `.notFound`, or `.invalidArgument` for an ambiguous prefix.
    public func annotation(id: String) throws -> Annotation {
        try engine.read { try $0.annotation(id: id) }
    }

    /// The full id of the annotation `text` names: the id itself or a unique prefix of at least 4 characters.
    package func resolveAnnotationID(_ text: String) throws -> String {
        try engine.read { try $0.resolveAnnotationID(text) }
    }

    /// The full id of the annotation, device or change that `text` names: the id itself, or a unique prefix of at
    /// least `IDPrefix.minimumLength` characters ignoring ASCII case (the short ids `abbreviatedID` makes).
    ///
    ///     try store.resolveID("3F1C2A9E", kind: .annotation)   // "3f1c2a9e-…"
    ///
    /// - Throws: `MarginaliaError`: `.notFound`, or `.invalidArgument` for a prefix under 4 characters or one
    ///   that matches several ids (the error lists them).
    package func resolveID(_ text: String, kind: IDKind) throws -> String {
        try engine.read { try $0.ids.resolve(text, kind: kind) }
    }

    /// The short form of an id of `kind` to print: its shortest prefix of at least `IDPrefix.printedLength`
    /// characters (8) that no other id of that kind in the store starts with, ignoring ASCII case, so that
    /// `resolveID` takes it back to this id. Ids made in the same minute share their first 8 characters (they
    /// start with the time), so those get longer prefixes, as git abbreviates object names.
    ///
    ///     try store.abbreviatedID("0193a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b", kind: .annotation)   // "0193a1b2-c3"
    package func abbreviatedID(_ id: String, kind: IDKind) throws -> String {
        try engine.read { try $0.ids.abbreviated(id, kind: kind) }
    }

    /// The short forms of several ids of `kind` (as `abbreviatedID` makes each), keyed by id, read at once.
    package func abbreviatedIDs(_ ids: [String], kind: IDKind) throws -> [String: String] {
        try engine.read { try $0.ids.abbreviated(ids, kind: kind) }
    }

    /// The annotations that match `filter`: in reading order when content is attached (document, passage,
    /// offset), else in the order they were made.
    public func annotations(matching filter: AnnotationFilter = AnnotationFilter()) throws -> [Annotation] {
        try engine.read { try $0.annotations(matching: filter) }
    }

    /// How many annotations there are: live ones and tombstones.
    package func annotationCounts() throws -> (live: Int, deleted: Int) {
        try engine.read { try $0.annotationCounts() }
    }

    /// The reading position in `document`, or nil when none was set.
    public func position(document: String) throws -> ReadingPosition? {
        try engine.read { try $0.position(document: document) }
    }

    /// Every reading position, by document id.
    public func positions() throws -> [ReadingPosition] {
        try engine.read { try $0.positions() }
    }

    /// Every change to one annotation, oldest first (by clock).
    package func history(id: String) throws -> [Change] {
        try engine.read { try $0.history(id: id) }
    }

    /// The change log, oldest first, filtered; with a limit, the most recent `limit` changes.
    package func log(_ filter: LogFilter = LogFilter()) throws -> [Change] {
        try engine.read { try $0.log(filter) }
    }

    /// Checks some annotations against the attached edition (all `unchecked` without content).
    public func checkAnchors(_ annotations: [Annotation]) throws -> [AnchorCheck] {
        try engine.read { try $0.anchoring.checkAnchors(annotations) }
    }

    /// The edition the annotations were last reconciled with, when it is not the attached one and some annotation
    /// was anchored on another edition: the cue to check anchors.
    public func pendingReconciliation() throws -> String? {
        try engine.read { try $0.anchoring.pendingReconciliation() }
    }

    /// The content anchors were last reconciled against (its edition, and its path when it was recorded), if ever.
    package func reconciledContent() throws -> ReconciledContent? {
        try engine.read { try $0.anchoring.reconciledContent() }
    }

    /// Every edition some annotation (deleted ones too) is anchored on, in no particular order.
    package func anchoredEditions() throws -> [String] {
        try engine.read { try $0.anchoring.anchoredEditions() }
    }

    /// The edition anchors were last reconciled against, if ever.
    package func reconciledEdition() throws -> String? {
        try engine.read { try $0.anchoring.reconciledEdition() }
    }

    /// Searches the user's own notes and quotes (not deleted ones), best matches first, folding case and
    /// diacritics as content search does. Works without content.
    public func searchNotes(_ text: String, limit: Int = 20, matchingInflections: Bool = true) throws
        -> [Annotation]
    {
        try engine.read { try $0.search.notes(text, limit: limit, inflections: matchingInflections) }
    }

    /// Checks the store: SQLite's integrity check, that the log is intact and append-only, and that replaying the
    /// log reproduces the current tables exactly. Reads only.
    public func verify() throws -> VerificationReport {
        try engine.read { try $0.verifier.verify() }
    }

    /// A fingerprint of every row of the store's tables, in key order: equal until a write. A quick check that
    /// something did not change, not a security measure.
    package func canonicalFingerprint() throws -> String {
        try engine.read { try $0.verifier.canonicalFingerprint() }
    }
}
