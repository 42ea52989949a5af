// The C-API floors of search: the statements a search runs, through sqlite3_prepare_v2/bind/step.
import CSQLite
import CSearchRank
import Foundation
import Marginalia

extension CFloor {
    /// The plain FTS5 statement of the words as typed: bm25, a snippet and the annotation count of each of the first
    /// `limit` passages (its arguments: the snippet's markers, the FTS5 expression, the limit).
    static let searchSQL = """
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

    /// A connection on the store with the content attached read-only, and the statement of the words as typed
    /// prepared once.
    final class Search {
        let db: CConnection
        let statement: OpaquePointer

        init(store: String, content: String) throws {
            db = try CConnection(path: store, readOnly: true)
            try db.execute("ATTACH DATABASE '\(Self.uri(content))' AS content")
            statement = try db.prepare(CFloor.searchSQL)
        }

        deinit {
            sqlite3_finalize(statement)
        }

        /// Runs one FTS5 expression and reads every column of every row, as a caller would; returns the rows.
        func run(expression: String, limit: Int) throws -> Int {
            sqlite3_reset(statement)
            try db.bind(statement, ["[", "]", expression])
            try db.check(sqlite3_bind_int64(statement, 4, Int64(limit)), "bind")
            return try db.readPage(statement, sql: CFloor.searchSQL)
        }

        /// A read-only `file:` URI for the content, as the library attaches it.
        static func uri(_ path: String) -> String {
            let allowed = CharacterSet(
                charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-~")
            return "file:" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path) + "?mode=ro"
        }
    }

    /// The statements of a reader's search, the very ones the library runs (`AnnotationStore.searchStatements`:
    /// the forms of each word, the page sorted by the rank function over every form and prefix, the count), on a
    /// connection with the rank function registered, each prepared once.
    final class ReaderSearch {
        let db: CConnection
        let forms: OpaquePointer
        let stemForms: OpaquePointer
        let page: OpaquePointer
        let count: OpaquePointer

        /// A query's arguments, worked out once before the timing: its plain words (each with the stem looked up
        /// when the vocabulary lacks the word), whose forms are looked up again each run, and the expression and
        /// rank function those forms give.
        struct Query {
            var words: [(word: String, stem: String?)]
            var expression: String
            var rank: String
        }

        init(store: String, content: String) throws {
            db = try CConnection(path: store, readOnly: true)
            try db.execute("ATTACH DATABASE '\(Search.uri(content))' AS content")
            try db.check(marginalia_register_rank(db.handle), "marginalia_register_rank")
            let statements = AnnotationStore.searchStatements
            forms = try db.prepare(statements.forms)
            stemForms = try db.prepare(statements.stemForms)
            page = try db.prepare(statements.page)
            count = try db.prepare(statements.count)
        }

        deinit {
            sqlite3_finalize(forms)
            sqlite3_finalize(stemForms)
            sqlite3_finalize(page)
            sqlite3_finalize(count)
        }

        /// The arguments of `text`, with the forms this content's vocabulary gives its words.
        func query(_ text: String) throws -> Query {
            var words: [(word: String, stem: String?)] = []
            let query = try SearchQuery(text) { word in
                let stem = try Self.lookUp(self.forms, word).isEmpty ? AnnotationStore.searchStem(word) : nil
                words.append((word, stem))
                return try self.forms(of: (word, stem))
            }
            return Query(words: words, expression: query.widest,
                         rank: AnnotationStore.searchRankFunction(query, text: text))
        }

        /// Runs a query's statements and reads every column of every row, as a caller would; returns the rows
        /// of the page.
        func run(_ query: Query, limit: Int) throws -> Int {
            for word in query.words { _ = try forms(of: word) }
            sqlite3_reset(page)
            try db.bind(page, ["[", "]", query.expression, query.rank])
            try db.check(sqlite3_bind_int64(page, 5, Int64(limit)), "bind")
            try db.check(sqlite3_bind_int64(page, 6, 0), "bind")
            let rows = try db.readPage(page, sql: AnnotationStore.searchStatements.page)
            if rows == limit {
                sqlite3_reset(count)
                try db.bind(count, [query.expression])
                guard sqlite3_step(count) == SQLITE_ROW else {
                    throw BenchError("the count found no row for \(query.expression)")
                }
                _ = sqlite3_column_int64(count, 0)
            }
            return rows
        }

        /// The forms of a word: the vocabulary's, else those of its stem.
        private func forms(of word: (word: String, stem: String?)) throws -> [String] {
            let found = try Self.lookUp(forms, word.word)
            guard found.isEmpty, let stem = word.stem else { return found }
            return try Self.lookUp(stemForms, stem)
        }

        /// The texts a statement of one text parameter finds.
        private static func lookUp(_ statement: OpaquePointer, _ argument: String) throws -> [String] {
            sqlite3_reset(statement)
            guard sqlite3_bind_text(statement, 1, argument, -1, marginalia_sqlite_transient()) == SQLITE_OK else {
                throw BenchError("cannot bind '\(argument)'")
            }
            var found: [String] = []
            while sqlite3_step(statement) == SQLITE_ROW {
                found.append(String(cString: sqlite3_column_text(statement, 0)))
            }
            return found
        }
    }
}

extension CConnection {
    /// Binds texts to a statement's first parameters.
    func bind(_ statement: OpaquePointer, _ texts: [String]) throws {
        for (index, text) in texts.enumerated() {
            try check(sqlite3_bind_text(statement, Int32(index + 1), text, -1, marginalia_sqlite_transient()), "bind")
        }
    }

    /// Steps a search page's statement to its end, reading every column of every row (five texts, a double and
    /// an integer), as a caller would; returns the rows.
    func readPage(_ statement: OpaquePointer, sql: String) throws -> Int {
        var rows = 0
        var checksum = 0
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { try check(rc, sql); break }
            for column in 0..<5 {
                checksum &+= String(cString: sqlite3_column_text(statement, Int32(column))).utf8.count
            }
            checksum &+= Int(sqlite3_column_double(statement, 5)) &+ Int(sqlite3_column_int64(statement, 6))
            rows += 1
        }
        return rows + (checksum == Int.min ? 1 : 0)
    }
}
