/// The store as it was: the annotations at a moment (the log replayed up to it), what changed between two moments,
/// each annotation's history field by field, and the notes searched as they were. Reads only: it folds the log
/// through the connection it is given by the rule the current tables are kept by (`AnnotationRegisters`).
struct TimeTravel {
    /// The connection the log is read through.
    let store: StoreConnection

    var db: WriteBehindDatabase { store.db }
}

// MARK: - The store as it was

extension TimeTravel {
    /// The clock just after the last millisecond of `milliseconds`: a change belongs to the state "as of" that time
    /// when it was made (`Change.madeAt`) before this bound's millisecond (at or before that millisecond).
    static func bound(asOf milliseconds: Int64) -> HLC {
        HLC(milliseconds: min(max(0, milliseconds), HLC.maxMilliseconds - 1) + 1, counter: 0)
    }

    /// The clock at the start of `milliseconds`: a change is "since" that time when its clock is at or above it, as
    /// `log --since` counts.
    static func bound(at milliseconds: Int64) -> HLC {
        HLC(milliseconds: min(max(0, milliseconds), HLC.maxMilliseconds), counter: 0)
    }

    /// The annotations that matched `filter` at `milliseconds` (changes made at or before that millisecond), in
    /// the order `annotations(matching:)` lists the current ones.
    func annotations(asOf milliseconds: Int64, matching filter: AnnotationFilter = AnnotationFilter()) throws
        -> [Annotation]
    {
        var found: [Annotation] = []
        try store.projection.replayAnnotations(before: Self.bound(asOf: milliseconds)) { annotation in
            if filter.matches(annotation) { found.append(annotation) }
        }
        return try inListOrder(found)
    }

    /// The annotation with this id (or unique prefix) as it was at `milliseconds`; nil when it was made later.
    /// - Throws: `StoreError.annotationNotFound` or `.ambiguousID` for an id the store does not know.
    func annotation(id: String, asOf milliseconds: Int64) throws -> Annotation? {
        let fullID = try store.resolveAnnotationID(id)
        let bound = Self.bound(asOf: milliseconds)
        return AnnotationRegisters.fold(
            id: fullID,
            try store.log.changes(of: .annotation, id: fullID).filter { $0.madeAt < bound.milliseconds }).annotation
    }

    /// Sorts annotations as `annotations(matching:)` does: in reading order when content is attached (document,
    /// passage, offset), else in the order they were made; then by creation clock and id.
    func inListOrder(_ annotations: [Annotation]) throws -> [Annotation] {
        var documentOrder: [String: Int64] = [:]
        var passageOrder: [String: Int64] = [:]
        if store.content != nil, !annotations.isEmpty {
            try db.forEachRow(
                sql: "SELECT id, ord FROM content.documents WHERE id IN (SELECT value FROM json_each(?))",
                arguments: [try ProjectionCache.jsonList(Array(Set(annotations.map(\.anchor.document))))]
            ) { row in documentOrder[try row.string(0)] = try row.int64(1) }
            try db.forEachRow(
                sql: "SELECT id, ord FROM content.passages WHERE id IN (SELECT value FROM json_each(?))",
                arguments: [try ProjectionCache.jsonList(Array(Set(annotations.map(\.anchor.start.passage))))]
            ) { row in passageOrder[try row.string(0)] = try row.int64(1) }
        }
        // Unknown documents and passages after known ones, as "ord IS NULL, ord" sorts them in SQL.
        func key(_ annotation: Annotation) -> (Int64, Int64, Int, HLC) {
            (documentOrder[annotation.anchor.document] ?? .max, passageOrder[annotation.anchor.start.passage] ?? .max,
             store.content == nil ? 0 : annotation.anchor.start.offset, annotation.createdAt)
        }
        return annotations.sorted { lhs, rhs in
            let (left, right) = (key(lhs), key(rhs))
            if left != right { return left < right }
            return lhs.id < rhs.id
        }
    }
}

extension AnnotationFilter {
    /// Whether `annotation` meets every condition, as the SQL of `annotations(matching:)` checks them.
    func matches(_ annotation: Annotation) -> Bool {
        if !includeDeleted && annotation.deleted { return false }
        if let document, annotation.anchor.document != document { return false }
        if let passage, annotation.anchor.start.passage != passage && annotation.anchor.end.passage != passage {
            return false
        }
        if let kind, annotation.kind != kind { return false }
        if let tag {
            let wanted = StoreConnection.tagKey(tag)
            if !annotation.tags.contains(where: { StoreConnection.tagKey($0) == wanted }) { return false }
        }
        return true
    }
}

// MARK: - Searching the notes as they were

extension TimeTravel {
    /// Searches the notes and quotes of the annotations that were not deleted at `milliseconds`, as
    /// `searchNotes` searches the current ones: the same FTS5 tokenizer and ranking, over a temporary index of
    /// the replayed state made for this query and dropped after it.
    ///
    /// With `matchingInflections`, words match by their stems, as `searchNotes` does. The index holds deleted
    /// annotations too, as `notes_fts` does, so that bm25 weighs words against the same collection; they are
    /// left out of the results.
    func searchNotes(_ text: String, asOf milliseconds: Int64, limit: Int = 20, matchingInflections: Bool = true)
        throws -> [Annotation]
    {
        let query = try store.search.query(text, inflections: matchingInflections).query
        var all: [Annotation] = []
        try store.projection.replayAnnotations(before: Self.bound(asOf: milliseconds)) { all.append($0) }
        // In the order they were made, as the rows of `annotations` were inserted: ties in rank come out alike.
        all.sort { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        // TEMP tables "are automatically deleted when the database connection is closed"
        // https://www.sqlite.org/tempfiles.html; dropped here anyway, so that the next query starts afresh. The
        // temp schema is writable on a read-only connection: only `main` is opened read-only.
        try db.executeScript(sql: """
            DROP TABLE IF EXISTS temp.notes_as_of;
            CREATE VIRTUAL TABLE temp.notes_as_of USING fts5(
                quote, note, content = '', tokenize = 'unicode61 remove_diacritics 2'
            );
            """)
        defer { try? db.executeScript(sql: "DROP TABLE IF EXISTS temp.notes_as_of") }
        for (index, annotation) in all.enumerated() {
            // Soft hyphens are dropped, as the triggers that keep notes_fts do.
            try db.execute(
                sql: """
                    INSERT INTO temp.notes_as_of (rowid, quote, note)
                    VALUES (?, replace(?, char(173), ''), replace(?, char(173), ''))
                    """,
                arguments: [Int64(index + 1), annotation.anchor.quote, annotation.note])
        }
        // The tiers in one pass, sorted by the rank function `searchNotes` sorts by.
        let rows: [Int] = try Search.run(query: text) {
            try db.fetchAll(
                sql: "SELECT rowid FROM temp.notes_as_of WHERE notes_as_of MATCH ?1 AND rank MATCH ?2 ORDER BY rank",
                arguments: [query.widest, Search.rankFunction(tree: query.rankTree, spelled: [])]) { try $0.int(0) }
        }
        let found = rows.compactMap { $0 >= 1 && $0 <= all.count ? all[$0 - 1] : nil }.filter { !$0.deleted }
        return Array(found.prefix(limit))
    }
}
