/// A query as a reader types it, turned into an FTS5 query that cannot be a syntax error.
///
/// The reader's syntax: words (all must match), `"a phrase"`, `prefix*`, `OR` between two terms, and
/// `-word` to exclude. Every word is passed to FTS5 as a quoted string, so punctuation, FTS5 keywords and
/// column names in it are plain text; diacritics are folded by the index's tokenizer
/// (`remove_diacritics 2`), so `stiinta`, `ştiinţă` and `știință` all find the same passages.
public struct SearchQuery: Equatable, Sendable {
    /// The FTS5 MATCH expression.
    public let expression: String

    /// - Throws: `SearchError.malformedQuery` for an empty query, an unclosed quote, a dangling `OR`, or a
    ///   query with only exclusions.
    public init(_ text: String) throws {
        var positive: [String] = []
        var negative: [String] = []
        var pendingOr = false
        for token in try Self.tokens(text) {
            switch token {
            case .or:
                guard !positive.isEmpty, !pendingOr else {
                    throw SearchError.malformedQuery(text, reason: "OR needs a term on each side")
                }
                pendingOr = true
            case .term(let term, let excluded):
                if excluded {
                    negative.append(term)
                } else if pendingOr {
                    positive[positive.count - 1] = "(\(positive[positive.count - 1]) OR \(term))"
                    pendingOr = false
                } else {
                    positive.append(term)
                }
            }
        }
        if pendingOr { throw SearchError.malformedQuery(text, reason: "OR needs a term on each side") }
        guard !positive.isEmpty else {
            let reason = negative.isEmpty
                ? "it has no words to look for" : "it only excludes words; say what to look for"
            throw SearchError.malformedQuery(text, reason: reason)
        }
        var expression = positive.joined(separator: " AND ")
        for term in negative { expression = "(\(expression)) NOT \(term)" }
        self.expression = expression
    }

    private enum Token {
        case term(String, excluded: Bool)
        case or
    }

    private static func tokens(_ text: String) throws -> [Token] {
        var tokens: [Token] = []
        let characters = Array(text)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character.isWhitespace {
                index += 1
                continue
            }
            var excluded = false
            if character == "-" && index + 1 < characters.count && !characters[index + 1].isWhitespace {
                excluded = true
                index += 1
            }
            if characters[index] == "\"" {
                guard let close = characters[(index + 1)...].firstIndex(of: "\"") else {
                    throw SearchError.malformedQuery(text, reason: "a quote (\") is not closed")
                }
                let phrase = String(characters[(index + 1)..<close])
                index = close + 1
                var prefix = false
                if index < characters.count && characters[index] == "*" {
                    prefix = true
                    index += 1
                }
                if let term = quoted(phrase, prefix: prefix) { tokens.append(.term(term, excluded: excluded)) }
                continue
            }
            var end = index
            while end < characters.count && !characters[end].isWhitespace && characters[end] != "\"" { end += 1 }
            var word = String(characters[index..<end])
            index = end
            if word == "OR" && !excluded {
                tokens.append(.or)
                continue
            }
            var prefix = false
            if word.hasSuffix("*") {
                prefix = true
                while word.hasSuffix("*") { word.removeLast() }
            }
            if let term = quoted(word, prefix: prefix) { tokens.append(.term(term, excluded: excluded)) }
        }
        return tokens
    }

    /// A word or phrase as an FTS5 string (`"…"`, inner quotes doubled), nil when it holds no letter or digit
    /// (the tokenizer would find no token in it).
    private static func quoted(_ text: String, prefix: Bool) -> String? {
        guard text.unicodeScalars.contains(where: { $0.properties.isAlphabetic || $0.properties.numericType != nil })
        else { return nil }
        let escaped = SearchText.indexable(text).replacingOccurrences(of: "\"", with: "\"\"")
        return "\"\(escaped)\"" + (prefix ? " *" : "")
    }
}

/// Why a search could not run.
public enum SearchError: Error, Equatable, Sendable, CustomStringConvertible {
    case malformedQuery(String, reason: String)

    /// The problem with the query in words.
    public var description: String {
        switch self {
        case .malformedQuery(let query, let reason):
            return "cannot search for '\(query)': \(reason)"
        }
    }
}
