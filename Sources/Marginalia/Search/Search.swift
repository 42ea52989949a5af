/// Full-text search, over the content's passages and over the user's own notes and quotes: both fold diacritics
/// alike (`TextFolding`), take the same query syntax (`SearchQuery`) and rank by FTS5's bm25. A part of its own: it
/// reads through the connection it is given, and knows nothing else of the store.
struct Search {
    let db: any Database
    /// Whether the attached content records word forms, when the caller knows (read at attach, `ContentInfo`).
    var knownVocabulary: Bool? = nil

    /// Searches the attached content (the caller checks that there is one) in the query's tiers (`SearchQuery`):
    /// the words as typed, then their other forms, then their prefixes, each tier by bm25; `limit` passages from
    /// `offset`, and how many there are. Without `inflections`, the words as typed only.
    ///
    /// One FTS5 pass finds every tier's passages (the widest tier's expression) and sorts them itself by the rank
    /// function `marginalia_rank` (`Sources/CSearchRank`): the passage's tier, then whether it holds the words
    /// with the diacritics typed, then the bm25 of its tier's expression. Snippets are made for the page only.
    ///
    /// - Throws: `SearchError.malformedQuery`.
    func content(_ text: String, limit: Int = 20, offset: Int = 0, markers: SnippetMarkers = .brackets,
                 inflections: Bool = true) throws -> SearchPage {
        let (query, formsAvailable) = try self.query(text, inflections: inflections)
        let rank = Self.rankFunction(tree: query.rankTree, spelled: Self.diacriticWords(of: text))
        return try Self.run(query: text) {
            let hits = try db.fetchAll(
                sql: Self.rankedContentSQL,
                arguments: [markers.open, markers.close, query.widest, rank, limit, offset]
            ) { row in
                SearchHit(
                    passage: try row.string(0), document: try row.string(1), documentTitle: try row.string(2),
                    text: try row.string(3), snippet: try row.string(4), score: Self.score(rank: try row.double(5)),
                    annotationCount: try row.int(6))
            }
            var total = offset + hits.count
            if hits.count == limit || (hits.isEmpty && offset > 0) {
                total = Int(try db.int(sql: Self.countSQL, arguments: [query.widest]) ?? 0)
            }
            return SearchPage(hits: hits, total: total, formsAvailable: formsAvailable)
        }
    }

    /// A page of content search, sorted by FTS5 by the rank function given (?4) over the widest expression (?3):
    /// the snippet's markers (?1, ?2), the limit and offset (?5, ?6).
    static let rankedContentSQL = """
        SELECT p.id, p.document_id, d.title, p.text, snippet(passages_fts, 0, ?1, ?2, '…', 16), rank,
            (SELECT count(*) FROM main.annotations a WHERE a.start_passage = p.id AND a.deleted = 0)
        FROM content.passages_fts
        JOIN content.passages p ON p.rowid = passages_fts.rowid
        JOIN content.documents d ON d.id = p.document_id
        WHERE passages_fts MATCH ?3 AND rank MATCH ?4
        ORDER BY rank
        LIMIT ?5 OFFSET ?6
        """

    /// How many passages an expression (?1) finds.
    static let countSQL = "SELECT count(*) FROM content.passages_fts WHERE passages_fts MATCH ?1"

    /// Every form of the content sharing a stem (or a lemma) with the form typed (?1), in one lookup through both
    /// indexes. A form the content does not hold but a lemma of it does (`~` and the lemma, `Vocabulary`) gives
    /// the forms recorded with `=` and that lemma; those with `~` are never found, so every form found is in text.
    static let formsSQL = """
        SELECT DISTINCT other.form FROM content.vocabulary typed
        JOIN content.vocabulary other
            ON other.stem = (CASE WHEN substr(typed.stem, 1, 1) = '~' THEN '=' || substr(typed.stem, 2)
                ELSE typed.stem END)
        WHERE typed.form = ?1 ORDER BY other.form
        """

    /// The forms of the content whose stem, folded, is the one given (?1): for a form the vocabulary lacks.
    static let stemFormsSQL = "SELECT DISTINCT form FROM content.vocabulary WHERE folded_stem = ?1 ORDER BY form"

    /// The Snowball stem of a form, folded as the vocabulary's `folded_stem`; nil without the stemmer.
    static func foldedStem(of form: String) -> String? {
        RomanianStemmer().map { Vocabulary.form(of: $0.stem(form)) }
    }

    /// The rank function of a query, as FTS5's `rank MATCH` takes it: `marginalia_rank('TREE', 'ș', 'ş', …)`, the
    /// query's tree and, for each word typed with a diacritic, its two spellings (SQL strings, quotes doubled).
    static func rankFunction(tree: String, spelled: [(comma: String, cedilla: String)]) -> String {
        let arguments = ([tree] + spelled.flatMap { [$0.comma, $0.cedilla] })
            .map { "'" + ($0.utf8.contains(0x27) ? $0.replacingOccurrences(of: "'", with: "''") : $0) + "'" }
        return "marginalia_rank(\(arguments.joined(separator: ", ")))"
    }

    /// The bm25 score within a rank: `marginalia_rank` adds a multiple of 1e6 (the tier and the spelling) to a
    /// bm25 score between -1e6 and 0.
    static func score(rank: Double) -> Double {
        rank - (rank / 1e6).rounded(.up) * 1e6
    }

    /// The plain words of a query written with a letter outside ASCII (a diacritic), lowercased and in today's
    /// spelling of ș and ț, as they are looked for in a passage's text.
    static func diacriticWords(of text: String) -> [(comma: String, cedilla: String)] {
        guard text.utf8.contains(where: { $0 >= 0x80 }) else { return [] }
        return text.split(whereSeparator: { $0.isWhitespace || $0 == "\"" }).map(String.init)
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

    /// A reader's query, its words also in their other forms when `inflections` asks and content that records
    /// them is attached (read once for the whole query); and whether it is.
    func query(_ text: String, inflections: Bool) throws -> (query: SearchQuery, formsAvailable: Bool) {
        let formsAvailable = try knownVocabulary
            ?? (db.int(sql: "SELECT 1 FROM pragma_database_list WHERE name = 'content'") != nil && hasVocabulary())
        let query = try SearchQuery(text, forms: inflections
            ? { formsAvailable ? try self.forms(of: $0, checked: true) : [] } : nil)
        return (query, formsAvailable)
    }

    /// Whether the attached content records word forms.
    func hasVocabulary() throws -> Bool {
        if let knownVocabulary { return knownVocabulary }
        return try db.int(sql: "SELECT 1 FROM content.sqlite_schema WHERE type = 'table' AND name = 'vocabulary'") != nil
    }

    /// The forms of the content sharing a stem with `form` (folded, as the index holds words): read from the
    /// content's vocabulary; a form the content does not hold is stemmed here when the stemmer is built in. None
    /// without a vocabulary (content built by an older version, or without content).
    /// - Parameter checked: the caller knows the content has a vocabulary.
    func forms(of form: String, checked: Bool = false) throws -> [String] {
        guard try checked || hasVocabulary() else { return [] }
        let forms = try db.fetchAll(sql: Self.formsSQL, arguments: [form]) { try $0.string(0) }
        if forms.isEmpty {
            // A form the content does not hold, typed without its diacritics: its stem, folded, against the
            // folded stems of the content's words.
            guard let stem = Self.foldedStem(of: form) else { return [] }
            return try db.fetchAll(sql: Self.stemFormsSQL, arguments: [stem]) { try $0.string(0) }
        }
        return forms
    }

    /// Searches the user's own notes and quotes (not deleted ones) in the query's tiers, as `content` does (the
    /// forms from the attached content's vocabulary, when there is one), in one pass sorted by the same rank
    /// function. The notes index keeps no text of its own (`content = ''`), so no spelling comes first within a
    /// tier. Works without content.
    func notes(_ text: String, limit: Int = 20, inflections: Bool = true) throws -> [Annotation] {
        let query = try self.query(text, inflections: inflections).query
        return try Self.run(query: text) {
            try db.fetchAll(
                sql: """
                    SELECT \(Projection.annotationColumns(of: "a"))
                    FROM notes_fts JOIN annotations a ON a.rowid = notes_fts.rowid
                    WHERE notes_fts MATCH ?1 AND rank MATCH ?2 AND a.deleted = 0
                    ORDER BY rank
                    LIMIT ?3
                    """,
                arguments: [query.widest, Self.rankFunction(tree: query.rankTree, spelled: []), limit],
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
