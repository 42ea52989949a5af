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
        try engine.write { try $0.merger.merge(changes) }
    }

    /// Merges another machine's archive into this store, after validating the whole file.
    ///
    /// The file is read, inflated, checked (against the store's log too) and staged by a connection of its own, in
    /// a private file beside the store, while other writes go on; a file invalid anywhere changes nothing. The
    /// merge that follows holds the store's writer in short steps (each a transaction of its own, about 20 ms),
    /// so that the app's writes go on between them; it keeps the staged file beside the store until the last
    /// step, and if it is stopped midway (a crash, a kill, a full disk, `close()`), the next open of the store
    /// finishes it first: once the store is open again, the import is there whole or not at all. Once the merge
    /// has begun, a progress handler can no longer stop it. Into an empty store, the merge is one transaction. A
    /// dry run never takes the writer: it imports into a private copy of the store, beside it, and rolls back.
    /// - Parameter dryRun: report what would happen, and write nothing.
    /// - Throws: `MarginaliaError` (`.invalidData` naming the file, line and reason).
    /// - Parameter acceptFuture: merge changes dated more than a day ahead of this machine's clock at once, instead
    ///   of holding them in quarantine until they are plausible.
    @discardableResult
    public func importArchive(path: String, dryRun: Bool = false, acceptFuture: Bool = false,
                              limits: ArchiveLimits = ArchiveLimits()) throws -> ImportReport
    {
        try importArchive(path: path, dryRun: dryRun, acceptFuture: acceptFuture, limits: limits, with: nil)
    }

    /// `importArchive`, with `progress` in place of the store-wide progress handler when given.
    func importArchive(path: String, dryRun: Bool, acceptFuture: Bool, limits: ArchiveLimits,
                       with progress: ProgressHandler?) throws -> ImportReport
    {
        // A store in memory has no file to stage beside; a thread inside a batch holds the writer already.
        guard self.path != ":memory:", !engine.currentThreadWrites else {
            return try engine.write(progress: progress) {
                try ArchiveImporter(store: $0).importArchive(path: path, dryRun: dryRun, acceptFuture: acceptFuture,
                                                             limits: limits)
            }
        }
        if dryRun {
            return try dryRunImport(path: path, acceptFuture: acceptFuture, limits: limits, progress: progress)
        }
        let staging: StagingFile
        do {
            let forEmptyStore = try engine.read { try $0.changeCount() == 0 }
            let handler = progress ?? engine.progressHandler
            staging = try StagingFile(archive: path, limits: limits, forEmptyStore: forEmptyStore,
                                      beside: self.path) { staged in
                try StoreConnection.reportProgress(to: handler, "reading archive", done: staged)
            }
        } catch {
            throw MarginaliaError(error)
        }
        defer { staging.remove() }
        if !staging.staged.forEmptyStore {
            return try importInSteps(staging, acceptFuture: acceptFuture, limits: limits,
                                     progress: progress ?? progressHandler)
        }
        return try engine.write(progress: progress) { writer in
            try staging.attached(to: writer) {
                try ArchiveImporter(store: writer).importStaged(staging.staged, dryRun: false,
                                                                acceptFuture: acceptFuture, limits: limits)
            }
        }
    }


    /// Merges every change held in quarantine now, whenever it was made: what a person does once they know the
    /// other machine's clock is right, or do not mind. Returns how many were merged.
    /// - Throws: `MarginaliaError` (`.invalidArgument`) naming a held change whose clock is after the latest the log
    ///   holds (4892-10-07T21:52:48.546Z), which a store of an earlier version may have held: nothing is merged.
    @discardableResult
    public func releaseQuarantinedChanges() throws -> Int {
        try engine.write { try $0.merger.releaseAllQuarantined() }
    }

    /// The changes held in quarantine (made ahead of this machine's clock when they arrived), oldest first.
    public func quarantinedChanges() throws -> [QuarantinedChange] {
        try engine.read { try $0.quarantine.all() }
    }

    /// The notes the store kept of local writes made with the wall clock far from its newest change.
    public func clockNotes() throws -> [ClockWarning] {
        try engine.read { try $0.clockNotes.all() }
    }

    /// Writes the store as an archive to `sink`, from one snapshot; streams.
    @discardableResult
    package func exportArchive(to sink: any ByteSink, filter: ExportFilter = ExportFilter(),
                              createdAt: String = Timestamp.iso8601(milliseconds: Timestamp.nowMilliseconds()),
                              level: Int = GzipWriter.defaultLevel) throws -> ArchiveCounts {
        try engine.read {
            try ArchiveExporter(store: $0).exportArchive(to: sink, filter: filter, createdAt: createdAt, level: level)
        }
    }

    /// Writes the archive to the file at `path`, through a temporary file beside it that is flushed to disk and
    /// renamed over `path` only when complete. An existing plain file is replaced only with `force`; a store, a
    /// content database, a directory or a device never. With `encryption` (recipients, or a passphrase), the file
    /// is an age file whose payload is the archive: `age -d -i key.txt FILE | zcat` reads it.
    @discardableResult
    public func exportArchive(toFile path: String, filter: ExportFilter = ExportFilter(), force: Bool = false,
                              encryptTo encryption: AgeKey? = nil) throws -> ArchiveCounts
    {
        try engine.read {
            try ArchiveExporter(store: $0).exportArchive(toFile: path, filter: filter, force: force,
                                                         encryption: encryption)
        }
    }

    /// Writes a verified backup of the store to `path`: written beside it, flushed, read back and checked
    /// completely, then renamed over `path`. With `encryption`, it is written and checked among this machine's
    /// temporary files, then encrypted (an age file) beside `path`.
    @discardableResult
    public func backup(to path: String, limits: ArchiveLimits = ArchiveLimits(), encryptTo encryption: AgeKey? = nil)
        throws -> BackupReport
    {
        try engine.read { try ArchiveExporter(store: $0).backup(to: path, limits: limits, encryption: encryption) }
    }

    /// Replaces the store at `storePath` with the one an archive holds, verified completely first; the previous
    /// store is kept beside it. A partial archive cannot be restored (import it instead).
    @discardableResult
    public static func restore(archive: String, to storePath: String, dryRun: Bool = false,
                               limits: ArchiveLimits = ArchiveLimits()) throws -> RestoreReport {
        do {
            return try ArchiveRestore.restore(archive: archive, to: storePath, dryRun: dryRun, limits: limits)
        } catch {
            throw MarginaliaError(error)
        }
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
