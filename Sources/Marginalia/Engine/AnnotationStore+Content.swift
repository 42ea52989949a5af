// MARK: - Content

extension AnnotationStore {
    /// Attaches the content database at `path`, read-only, replacing any content attached before, for every
    /// connection of the store. Nothing is created when the file is missing, and nothing in the store changes.
    /// - Throws: `MarginaliaError` (`.contentUnavailable`, `.newerVersion`); no content is attached then.
    public func attachContent(path: String) throws {
        try engine.setContent(path)
    }

    /// Detaches the content, if any.
    public func detachContent() throws {
        try engine.setContent(nil)
    }

    /// Checks a request against the attached content and captures the quote, prefix and suffix.
    package func resolveAnchor(_ request: AnchorRequest, kind: AnnotationKind) throws -> Anchor {
        try engine.read { try $0.anchoring.resolveAnchor(request, kind: kind) }
    }

    /// The passage with this id in the attached content, or nil.
    public func passage(id: String) throws -> Passage? {
        try engine.read { try $0.attached.passage(id: id) }
    }

    /// The passage at `order` in `document`, or nil.
    public func passage(document: String, order: Int) throws -> Passage? {
        try engine.read { try $0.attached.passage(document: document, order: order) }
    }

    /// Every passage of `document`, in order.
    public func passages(document: String) throws -> [Passage] {
        try engine.read { try $0.attached.passages(document: document) }
    }

    /// The document with this id, or nil.
    public func document(id: String) throws -> ContentDocument? {
        try engine.read { try $0.attached.document(id: id) }
    }

    /// Every document, in order.
    public func documents() throws -> [ContentDocument] {
        try engine.read { try $0.attached.documents() }
    }

    /// Searches the attached content: the first page of `searchPassages`, its hits only.
    ///
    /// - Parameter matchingInflections: find each plain word in its other forms too (`codru` finds `codrului`),
    ///   as the content's vocabulary records them (content built by `marginalia content build` of schema 2 on);
    ///   the words as typed rank first.
    public func searchContent(_ text: String, limit: Int = 20, markers: SnippetMarkers = .brackets,
                              matchingInflections: Bool = true) throws -> [SearchHit]
    {
        try searchPassages(text, limit: limit, markers: markers, matchingInflections: matchingInflections).hits
    }

    /// A page of a content search: `limit` passages from `offset`, in the search's tiers (the words as typed, their
    /// other forms, their prefixes; bm25 within each), and how many passages there are in all.
    /// - Throws: `MarginaliaError` for a malformed query or no content.
    public func searchPassages(_ text: String, limit: Int = 20, offset: Int = 0, markers: SnippetMarkers = .brackets,
                               matchingInflections: Bool = true) throws -> SearchPage
    {
        try engine.read {
            _ = try $0.requireContent()
            return try $0.search.content(text, limit: limit, offset: offset, markers: markers,
                                         inflections: matchingInflections)
        }
    }
}

// MARK: - Changes, merging and archives

extension AnnotationStore {
    /// The cursor after the newest change the store holds.
    public func cursor() throws -> ChangeCursor {
        try engine.read { try $0.log.cursor() }
    }

    /// Every change the store holds after `cursor`, in the store's own order; `nil` means from the start.
    ///
    ///     let report = try phone.merge(try laptop.changes(after: nil))
    public func changes(after cursor: ChangeCursor?) throws -> [Change] {
        try engine.read { try $0.log.changes(after: cursor) }
    }

    /// At most `limit` changes after `cursor`, and the cursor after them: for reading a large log in pages.
    public func changePage(after cursor: ChangeCursor?, limit: Int) throws -> ChangePage {
        try engine.read { try $0.log.changePage(after: cursor, limit: limit) }
    }

    /// Streams every change after `cursor` to `body`, each with the cursor just after it, from one snapshot of
    /// the log, without holding them in memory. Returns the cursor after the last one.
    @discardableResult
    public func forEachChange(after cursor: ChangeCursor?, _ body: (Change, ChangeCursor) throws -> Void) throws
        -> ChangeCursor
    {
        try engine.read { try $0.log.forEachChange(after: cursor, body) }
    }

    /// Merges changes from another store, by any transport, in one transaction: all of them or none. Changes
    /// already here (by change id) count as duplicates; each field takes the value of its latest change.
    @discardableResult
    public func merge(_ changes: some Sequence<Change>) throws -> MergeReport {
        try engine.write { try $0.merging { try $0.merge(changes) } }
    }

    /// Merges every change held in quarantine now, whenever it was made: what a person does once they know the
    /// other machine's clock is right, or do not mind. Returns how many were merged.
    /// - Throws: `MarginaliaError` (`.invalidArgument`) naming a held change whose clock is after the latest the log
    ///   holds (4892-10-07T21:52:48.546Z), which a store of an earlier version may have held: nothing is merged.
    @discardableResult
    public func releaseQuarantinedChanges() throws -> Int {
        try engine.write { try $0.merging { try $0.releaseAllQuarantined() } }
    }

    /// The changes held in quarantine (made ahead of this machine's clock when they arrived), oldest first.
    public func quarantinedChanges() throws -> [QuarantinedChange] {
        try engine.read { try $0.quarantine.all() }
    }

    /// The notes the store kept of local writes made with the wall clock far from its newest change.
    public func clockNotes() throws -> [ClockWarning] {
        try engine.read { try $0.clockNotes.all() }
    }
}

extension AnnotationStore {
    /// The statements a reader's search runs, for the benchmark that runs them through the C API: the forms of a
    /// word, the forms of a stem (for a word the vocabulary lacks, `searchStem`), the page sorted by the rank
    /// function, the count.
    package static var searchStatements: (forms: String, stemForms: String, page: String, count: String) {
        (Search.formsSQL, Search.stemFormsSQL, Search.rankedContentSQL, Search.countSQL)
    }
    /// The folded stem a search looks up for a word the vocabulary lacks.
    package static func searchStem(_ form: String) -> String? { Search.foldedStem(of: form) }
    /// The rank function of a query, as the search's page statement takes it.
    package static func searchRankFunction(_ query: SearchQuery, text: String) -> String {
        Search.rankFunction(tree: query.rankTree, spelled: Search.diacriticWords(of: text))
    }
}
