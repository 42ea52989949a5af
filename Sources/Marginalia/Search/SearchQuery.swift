/// A query as a reader types it, turned into an FTS5 query that cannot be a syntax error.
///
/// The reader's syntax: words (all must match), `"a phrase"`, `prefix*`, `OR` between two terms, and
/// `-word` to exclude. Every word is passed to FTS5 as a quoted string, so punctuation, FTS5 keywords and
/// column names in it are plain text; diacritics are folded by the index's tokenizer
/// (`remove_diacritics 2`), so `stiinta`, `ştiinţă` and `știință` all find the same passages.
package struct SearchQuery: Equatable, Sendable {
    /// The FTS5 MATCH expression.
    package let expression: String
    /// With `matchingInflections`: the stems each changed word is looked for as (`stiinta` → `stiint`), in order.
    package let stems: [String]

    /// The fewest letters a word must have to be looked for by its stem.
    package static let minimumInflectedLength = 5

    /// - Parameter matchingInflections: look for each plain word of at least `minimumInflectedLength` letters
    ///   (not a phrase, prefix or exclusion) as a prefix: the word folded (case and diacritics) without its
    ///   final vowels, `stiinta` → `stiint*`, so that `ştiinţei`, `ştiinţele` and `ştiinţ-` match too.
    /// - Throws: `SearchError.malformedQuery` for an empty query, an unclosed quote, a dangling `OR`, or a
    ///   query with only exclusions.
    package init(_ text: String, matchingInflections: Bool = false) throws {
        var positive: [String] = []
        var negative: [String] = []
        var pendingOr = false
        var stems: [String] = []
        for token in try Self.tokens(text, inflecting: matchingInflections ? { stems.append($0) } : nil) {
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
        self.stems = stems
    }

    /// The stem a word is looked for as when inflections match, or nil when it is looked for as typed: the word
    /// folded, without its final vowels, when the word is at least `minimumInflectedLength` letters and the stem
    /// keeps at least 4.
    package static func stem(of word: String) -> String? {
        let folded = FoldedText(word, level: .letters).string
        guard folded.count >= minimumInflectedLength, folded.allSatisfy(\.isLetter) else { return nil }
        var stem = Substring(folded)
        while let last = stem.last, "aeiouy".contains(last) { stem = stem.dropLast() }
        return stem.count >= 4 ? String(stem) : nil
    }

    private enum Token {
        case term(String, excluded: Bool)
        case or
    }

    private static func tokens(_ text: String, inflecting: ((String) -> Void)?) throws -> [Token] {
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
            } else if let inflecting, !excluded, let stem = stem(of: word) {
                inflecting(stem)
                word = stem
                prefix = true
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
