/// One passage found by a content search.
public struct SearchHit: Hashable, Sendable {
    /// The passage's id.
    public var passage: String
    /// The id of the document it belongs to.
    public var document: String
    /// The title of that document.
    public var documentTitle: String
    /// The passage's whole text.
    public var text: String
    /// The passage with the matched words marked, shortened around them.
    public var snippet: String
    /// bm25 relevance: lower is more relevant.
    public var score: Double
    /// How many of the user's (not deleted) annotations start in this passage.
    public var annotationCount: Int
}

/// Markers around matched words in snippets.
public struct SnippetMarkers: Hashable, Sendable {
    /// Put before each matched word.
    public var open: String
    /// Put after each matched word.
    public var close: String

    /// Markers `open` and `close` around matched words.
    public init(open: String, close: String) {
        self.open = open
        self.close = close
    }

    /// Square brackets around matched words, as the CLI prints them.
    public static let brackets = SnippetMarkers(open: "[", close: "]")
}

extension StoreConnection {
    /// The statement `searchContent` runs; its arguments are the snippet's opening and closing markers, the FTS5
    /// query expression and the limit. Public so that a benchmark can run the very same statement directly.
    static let contentSearchSQL = """
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

    /// Searches the attached content, best matches first (FTS5's bm25 rank); with `matchingInflections`, words
    /// are looked for by their stems (see `SearchQuery`).
    ///
    /// - Throws: `SearchError.malformedQuery`, or `StoreError.contentUnavailable`.
    func searchContent(_ text: String, limit: Int = 20, markers: SnippetMarkers = .brackets,
                       matchingInflections: Bool = false) throws -> [SearchHit] {
        _ = try requireContent()
        let query = try SearchQuery(text, matchingInflections: matchingInflections)
        return try runSearch(query: text) {
            try db.fetchAll(
                sql: Self.contentSearchSQL,
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
    func searchNotes(_ text: String, limit: Int = 20, matchingInflections: Bool = false) throws -> [Annotation] {
        let query = try SearchQuery(text, matchingInflections: matchingInflections)
        let columns = Self.annotationColumns(of: "a")
        return try runSearch(query: text) {
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
    func runSearch<T>(query: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError
            where error.message.hasPrefix("fts5:") || error.message.contains("syntax error") {
            throw SearchError.malformedQuery(query, reason: error.message)
        }
    }
}
