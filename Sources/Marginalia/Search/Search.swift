/// Full-text search, over the content's passages and over the user's own notes and quotes: both fold diacritics
/// alike (`TextFolding`), take the same query syntax (`SearchQuery`) and rank by FTS5's bm25. A part of its own: it
/// reads through the connection it is given, and knows nothing else of the store.
struct Search {
    let db: any Database

    /// The statement of one tier: what a query of the words as typed runs (its arguments are the snippet's
    /// opening and closing markers, the FTS5 query expression and the limit). The benchmark compares the library's
    /// search with it run directly.
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

    /// Searches the attached content (the caller checks that there is one) in the query's tiers (`SearchQuery`):
    /// the words as typed, then their other forms, then their prefixes, each tier by bm25; `limit` passages from
    /// `offset`, and how many there are. Without `inflections`, the words as typed only.
    ///
    /// - Throws: `SearchError.malformedQuery`.
    func content(_ text: String, limit: Int = 20, offset: Int = 0, markers: SnippetMarkers = .brackets,
                 inflections: Bool = true) throws -> SearchPage {
        let formsAvailable = try hasVocabulary()
        let query = try SearchQuery(text, forms: inflections
            ? { formsAvailable ? try self.forms(of: $0, checked: true) : [] } : nil)
        let tiers = query.tiers
        let branches = tiers.indices.map { tier in
            """
            SELECT rowid AS id, \(tier) AS tier, bm25(passages_fts) AS score,
                snippet(passages_fts, 0, ?1, ?2, '…', 16) AS snip
            FROM content.passages_fts WHERE passages_fts MATCH ?\(tier + 3)
            """
        }.joined(separator: "\nUNION ALL\n")
        let found = "WITH hits AS MATERIALIZED (\(branches)), best AS (SELECT id, min(tier) AS tier, score, snip FROM hits GROUP BY id)"
        var arguments: [DatabaseValue] = [.text(markers.open), .text(markers.close)] + tiers.map { .text($0) }
        // Within a tier, a passage holding the words with the very diacritics typed comes first (`fată` before
        // `față`): the query's words that carry any, each looked for in the passage's text as typed.
        let spelled = Self.diacriticWords(of: text)
        return try Self.run(query: text) {
            let hits = try db.fetchAll(
                sql: """
                    \(found)
                    SELECT p.id, p.document_id, d.title, p.text, best.snip, best.score,
                        (SELECT count(*) FROM main.annotations a WHERE a.start_passage = p.id AND a.deleted = 0)
                    FROM best
                    JOIN content.passages p ON p.rowid = best.id
                    JOIN content.documents d ON d.id = p.document_id
                    ORDER BY best.tier, \(Self.spellingOrder(count: spelled.count, firstParameter: tiers.count + 5))
                        best.score, p.rowid
                    LIMIT ?\(tiers.count + 3) OFFSET ?\(tiers.count + 4)
                    """,
                arguments: StatementArguments(arguments + [.integer(Int64(limit)), .integer(Int64(offset))]
                    + spelled.flatMap { [.text($0.comma), .text($0.cedilla)] })
            ) { row in
                SearchHit(
                    passage: try row.string(0), document: try row.string(1), documentTitle: try row.string(2),
                    text: try row.string(3), snippet: try row.string(4), score: try row.double(5),
                    annotationCount: try row.int(6))
            }
            var total = offset + hits.count
            if hits.count == limit || (hits.isEmpty && offset > 0) {
                arguments.removeFirst(2)
                let counting = tiers.indices.map { tier in
                    "SELECT rowid FROM content.passages_fts WHERE passages_fts MATCH ?\(tier + 1)"
                }.joined(separator: " UNION ")
                total = Int(try db.int(sql: "SELECT count(*) FROM (\(counting))",
                                       arguments: StatementArguments(arguments)) ?? 0)
            }
            return SearchPage(hits: hits, total: total, formsAvailable: formsAvailable)
        }
    }

    /// The plain words of a query written with a letter outside ASCII (a diacritic), lowercased and in today's
    /// spelling of ș and ț, as they are looked for in a passage's text.
    static func diacriticWords(of text: String) -> [(comma: String, cedilla: String)] {
        text.split(whereSeparator: { $0.isWhitespace || $0 == "\"" }).map(String.init)
            .filter { word in
                !word.hasPrefix("-") && !word.hasSuffix("*") && word != "OR"
                    && word.unicodeScalars.contains { !$0.isASCII && $0.properties.isAlphabetic }
            }
            .map { word in
                let lower = word.lowercased().precomposedStringWithCanonicalMapping
                let comma = lower.replacingOccurrences(of: "ş", with: "ș").replacingOccurrences(of: "ţ", with: "ț")
                let cedilla = comma.replacingOccurrences(of: "ș", with: "ş").replacingOccurrences(of: "ț", with: "ţ")
                return (comma, cedilla)
            }
    }

    /// The ORDER BY term that puts first the passages holding every diacritic word of the query as typed (its
    /// parameters, from `firstParameter`, are each word in both spellings of ș and ț); "" without such words.
    static func spellingOrder(count: Int, firstParameter: Int) -> String {
        guard count > 0 else { return "" }
        let each = (0..<count).map { index in
            let comma = firstParameter + 2 * index
            return "(instr(lower(p.text), ?\(comma)) > 0 OR instr(lower(p.text), ?\(comma + 1)) > 0)"
        }
        return "(" + each.joined(separator: " AND ") + ") DESC,"
    }

    /// Whether the attached content records word forms.
    func hasVocabulary() throws -> Bool {
        try db.int(sql: "SELECT 1 FROM content.sqlite_schema WHERE type = 'table' AND name = 'vocabulary'") != nil
    }

    /// The forms of the content sharing a stem with `form` (folded, as the index holds words): read from the
    /// content's vocabulary; a form the content does not hold is stemmed here when the stemmer is built in. None
    /// without a vocabulary (content built by an older version, or without content).
    /// - Parameter checked: the caller knows the content has a vocabulary.
    func forms(of form: String, checked: Bool = false) throws -> [String] {
        guard try checked || hasVocabulary() else { return [] }
        // Every form sharing a stem (or a lemma) with the form typed, in one lookup through both indexes.
        let forms = try db.fetchAll(
            sql: """
                SELECT DISTINCT other.form FROM content.vocabulary typed
                JOIN content.vocabulary other ON other.stem = typed.stem
                WHERE typed.form = ? ORDER BY other.form
                """,
            arguments: [form]) { try $0.string(0) }
        if forms.isEmpty {
            // A form the content does not hold, typed without its diacritics: its stem, folded, against the
            // folded stems of the content's words.
            guard let stemmer = RomanianStemmer() else { return [] }
            return try db.fetchAll(
                sql: "SELECT DISTINCT form FROM content.vocabulary WHERE folded_stem = ? ORDER BY form",
                arguments: [Vocabulary.form(of: stemmer.stem(form))]) { try $0.string(0) }
        }
        return forms
    }

    /// Searches the user's own notes and quotes (not deleted ones) in the query's tiers, as `content` does (the
    /// forms from the attached content's vocabulary, when there is one). Works without content.
    func notes(_ text: String, limit: Int = 20, inflections: Bool = true) throws -> [Annotation] {
        // Read once for the whole query: content attached, and with word forms.
        let formsAvailable = try db.int(sql: "SELECT 1 FROM pragma_database_list WHERE name = 'content'") != nil
            && hasVocabulary()
        let query = try SearchQuery(text, forms: inflections
            ? { formsAvailable ? try self.forms(of: $0, checked: true) : [] } : nil)
        let columns = Projection.annotationColumns(of: "a")
        let tiers = query.tiers
        let branches = tiers.indices.map { tier in
            "SELECT rowid AS id, \(tier) AS tier, bm25(notes_fts) AS score FROM notes_fts WHERE notes_fts MATCH ?\(tier + 1)"
        }.joined(separator: " UNION ALL ")
        return try Self.run(query: text) {
            try db.fetchAll(
                sql: """
                    WITH hits AS MATERIALIZED (\(branches)),
                        best AS (SELECT id, min(tier) AS tier, score FROM hits GROUP BY id)
                    SELECT \(columns) FROM best JOIN annotations a ON a.rowid = best.id
                    WHERE a.deleted = 0
                    ORDER BY best.tier, best.score, a.rowid
                    LIMIT ?\(tiers.count + 1)
                    """,
                arguments: StatementArguments(tiers.map { DatabaseValue.text($0) } + [.integer(Int64(limit))]),
                Annotation.init(row:))
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
