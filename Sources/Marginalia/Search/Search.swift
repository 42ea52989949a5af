/// Full-text search, over the content's passages and over the user's own notes and quotes: both fold diacritics
/// alike (`TextFolding`), take the same query syntax (`SearchQuery`) and rank by FTS5's bm25. A part of its own: it
/// reads through the connection it is given, and knows nothing else of the store.
struct Search {
    let db: any Database

    /// The statement `content` runs; its arguments are the snippet's opening and closing markers, the FTS5 query
    /// expression and the limit. The benchmark runs the very same statement directly.
    static let contentSQL = """
        SELECT p.id, p.document_id, d.title, p.text, snippet(passages_fts, 0, ?, ?, '…', 16),
            bm25(passages_fts),
            (SELECT count(*) FROM main.annotations a WHERE a.start_passage = p.id AND a.deleted = 0)
        FROM content.passages_fts
        JOIN content.passages p ON p.rowid = passages_fts.rowid
        JOIN content.documents d ON d.id = p.document_id
        WHERE passages_fts MATCH ?
        ORDER BY rank
        LIMIT ?
        """

    /// Searches the attached content (the caller checks that there is one), best matches first; with
    /// `matchingInflections`, words are looked for by their stems (see `SearchQuery`).
    ///
    /// - Throws: `SearchError.malformedQuery`.
    func content(_ text: String, limit: Int = 20, markers: SnippetMarkers = .brackets,
                 matchingInflections: Bool = false) throws -> [SearchHit] {
        let query = try SearchQuery(text, matchingInflections: matchingInflections)
        return try Self.run(query: text) {
            try db.fetchAll(
                sql: Self.contentSQL,
                arguments: [markers.open, markers.close, query.expression, limit]
            ) { row in
                SearchHit(
                    passage: try row.string(0), document: try row.string(1), documentTitle: try row.string(2),
                    text: try row.string(3), snippet: try row.string(4), score: try row.double(5),
                    annotationCount: try row.int(6))
            }
        }
    }

    /// Searches the user's own notes and quotes (not deleted ones), best matches first, with the same folding
    /// as content search. Works without content.
    func notes(_ text: String, limit: Int = 20, matchingInflections: Bool = false) throws -> [Annotation] {
        let query = try SearchQuery(text, matchingInflections: matchingInflections)
        let columns = StoreConnection.annotationColumns(of: "a")
        return try Self.run(query: text) {
            try db.fetchAll(
                sql: """
                    SELECT \(columns) FROM notes_fts JOIN annotations a ON a.rowid = notes_fts.rowid
                    WHERE notes_fts MATCH ? AND a.deleted = 0
                    ORDER BY rank
                    LIMIT ?
                    """,
                arguments: [query.expression, limit], Annotation.init(row:))
        }
    }

    /// Runs a search, turning an FTS5 query error (which `SearchQuery` should make impossible) into a
    /// `SearchError` rather than an SQLite message.
    static func run<T>(query: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError
            where error.message.hasPrefix("fts5:") || error.message.contains("syntax error") {
            throw SearchError.malformedQuery(query, reason: error.message)
        }
    }
}

extension StoreConnection {
    /// The search part, over this connection.
    var search: Search { Search(db: db) }
}
