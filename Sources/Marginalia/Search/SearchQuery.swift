/// A query as a reader types it, turned into FTS5 queries that cannot be a syntax error.
///
/// The reader's syntax: words (all must match), `"a phrase"`, `prefix*`, `OR` between two terms, and
/// `-word` to exclude. Every word is passed to FTS5 as a quoted string, so punctuation, FTS5 keywords and
/// column names in it are plain text; diacritics are folded by the index's tokenizer
/// (`remove_diacritics 2`), so `stiinta`, `ştiinţă` and `știință` all find the same passages.
///
/// A query is looked for in tiers, each ranked by bm25 and shown after the one before: the words as typed; then
/// every form of each plain word (the forms sharing its stem in the content's vocabulary: `codru` finds `codrului`,
/// `stea` finds `stelele`); then each plain word of four letters or more as a prefix. Phrases, prefixes and
/// exclusions are as typed in every tier.
package struct SearchQuery: Equatable, Sendable {
    /// The FTS5 MATCH expression of the words as typed.
    package let expression: String
    /// Every form of each plain word (nil when no word has other forms, or they were not asked for).
    package let formsExpression: String?
    /// Each plain word of four letters or more as a prefix (nil when none is, or they were not asked for).
    package let prefixExpression: String?

    /// The expressions of the tiers, in order.
    package var tiers: [String] { [expression] + [formsExpression, prefixExpression].compactMap { $0 } }

    /// The widest tier's expression: it finds every passage of every tier.
    package var widest: String { tiers[tiers.count - 1] }
    /// The structure of `widest` for the rank function that tells a passage's tier (`marginalia_rank`, in
    /// `Sources/CSearchRank`): in prefix notation, `&N` all of the next N nodes, `|N` any of them, `P:T` the
    /// expression's phrase P (numbered from 0 as they are written), found in tier T.
    package let rankTree: String

    /// - Parameter forms: the other forms of a plain word (folded, as the index holds them), or nil for a query
    ///   of the words as typed only (no other tier).
    /// - Throws: `SearchError.malformedQuery` for an empty query, an unclosed quote, a dangling `OR`, or a
    ///   query with only exclusions.
    package init(_ text: String, forms: ((String) throws -> [String])? = nil) throws {
        var parts: [[String]] = [[], [], []]
        var negative: [String] = []
        var pendingOr = false
        var widened = [false, false]
        // The rank trees of the forms tier's and the prefix tier's expression, node by positive part, and how many
        // phrases each has written so far.
        var trees: [[String]] = [[], []]
        var phrasesWritten = [0, 0]
        for token in try Self.tokens(text) {
            switch token {
            case .or:
                guard !parts[0].isEmpty, !pendingOr else {
                    throw SearchError.malformedQuery(text, reason: "OR needs a term on each side")
                }
                pendingOr = true
            case .term(let term, let word, let excluded):
                if excluded {
                    negative.append(term)
                    continue
                }
                let (variants, phrases, widens) = try Self.variants(of: term, word: word, forms: forms)
                widened = [widened[0] || widens[0], widened[1] || widens[1]]
                for tier in 0..<3 {
                    if pendingOr {
                        parts[tier][parts[tier].count - 1] = "(\(parts[tier][parts[tier].count - 1]) OR \(variants[tier]))"
                    } else {
                        parts[tier].append(variants[tier])
                    }
                }
                for tree in 0..<2 {
                    let leaves = phrases[tree].enumerated().map { "\(phrasesWritten[tree] + $0.offset):\($0.element)" }
                    phrasesWritten[tree] += leaves.count
                    let node = "|\(leaves.count) " + leaves.joined(separator: " ")
                    if pendingOr {
                        trees[tree][trees[tree].count - 1] = "|2 \(trees[tree][trees[tree].count - 1]) \(node)"
                    } else {
                        trees[tree].append(node)
                    }
                }
                pendingOr = false
            }
        }
        if pendingOr { throw SearchError.malformedQuery(text, reason: "OR needs a term on each side") }
        guard !parts[0].isEmpty else {
            let reason = negative.isEmpty
                ? "it has no words to look for" : "it only excludes words; say what to look for"
            throw SearchError.malformedQuery(text, reason: reason)
        }
        func expression(_ positive: [String]) -> String {
            var expression = positive.joined(separator: " AND ")
            for term in negative { expression = "(\(expression)) NOT \(term)" }
            return expression
        }
        self.expression = expression(parts[0])
        formsExpression = widened[0] ? expression(parts[1]) : nil
        prefixExpression = widened[1] ? expression(parts[2]) : nil
        // The widest expression is the prefix tier's when there is one, else the forms tier's (the same phrases
        // as the words as typed when neither widens).
        let tree = trees[widened[1] ? 1 : 0]
        rankTree = "&\(tree.count) " + tree.joined(separator: " ")
    }

    /// A term in each tier (as typed, with its other forms, and with its prefix too), the tiers of the phrases
    /// in the forms and the prefix variants (0 as typed, 1 another form, 2 the prefix), and whether it widens the
    /// forms tier and the prefix tier.
    private static func variants(of term: String, word: String?, forms: ((String) throws -> [String])?) throws
        -> (variants: [String], phrases: [[Int]], widened: [Bool])
    {
        var variants = [term, term, term]
        var phrases: [[Int]] = [[0], [0]]
        var widened = [false, false]
        guard let word, let forms else { return (variants, phrases, widened) }
        // Folded as the index holds words (an ASCII word only loses its capitals).
        let folded = word.utf8.allSatisfy { $0 < 0x80 } ? word.lowercased() : FoldedText(word, level: .letters).string
        let others = try forms(folded).compactMap { quoted($0, prefix: false) }.filter { $0 != term }
        if !others.isEmpty {
            variants[1] = "(" + ([term] + others).joined(separator: " OR ") + ")"
            phrases[0] += others.map { _ in 1 }
            widened[0] = true
        }
        phrases[1] = phrases[0]
        variants[2] = variants[1]
        if folded.count >= 4, let prefix = quoted(word, prefix: true) {
            variants[2] = "(\(variants[1]) OR \(prefix))"
            phrases[1].append(2)
            widened[1] = true
        }
        return (variants, phrases, widened)
    }

    private enum Token {
        /// A term as an FTS5 string; `word` is the plain word it came from (not a phrase, prefix or exclusion).
        case term(String, word: String?, excluded: Bool)
        case or
    }

    private static func tokens(_ text: String) throws -> [Token] {
        var tokens: [Token] = []
        // Code points rather than characters: the syntax's marks (space, quote, star, minus) are single code
        // points, and a query is read in one pass without grapheme breaking.
        let scalars = text.unicodeScalars
        var index = scalars.startIndex
        while index < scalars.endIndex {
            if scalars[index].isQuerySpace {
                index = scalars.index(after: index)
                continue
            }
            var excluded = false
            let next = scalars.index(after: index)
            if scalars[index] == "-" && next < scalars.endIndex && !scalars[next].isQuerySpace {
                excluded = true
                index = next
            }
            if scalars[index] == "\"" {
                let opening = scalars.index(after: index)
                guard let close = scalars[opening...].firstIndex(of: "\"") else {
                    throw SearchError.malformedQuery(text, reason: "a quote (\") is not closed")
                }
                let phrase = String(scalars[opening..<close])
                index = scalars.index(after: close)
                var prefix = false
                if index < scalars.endIndex && scalars[index] == "*" {
                    prefix = true
                    index = scalars.index(after: index)
                }
                if let term = quoted(phrase, prefix: prefix) {
                    tokens.append(.term(term, word: nil, excluded: excluded))
                }
                continue
            }
            var end = index
            while end < scalars.endIndex && !scalars[end].isQuerySpace && scalars[end] != "\"" {
                end = scalars.index(after: end)
            }
            var word = String(scalars[index..<end])
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
            if let term = quoted(word, prefix: prefix) {
                let plain = !prefix && !excluded && word.unicodeScalars.allSatisfy {
                    $0.properties.isAlphabetic || $0.properties.generalCategory == .nonspacingMark
                }
                tokens.append(.term(term, word: plain ? word : nil, excluded: excluded))
            }
        }
        return tokens
    }

    /// A word or phrase as an FTS5 string (`"…"`, inner quotes doubled), nil when it holds no letter or digit
    /// (the tokenizer would find no token in it).
    private static func quoted(_ text: String, prefix: Bool) -> String? {
        let ascii = text.utf8.allSatisfy { $0 < 0x80 }
        let hasToken = ascii
            ? text.utf8.contains { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
            : text.unicodeScalars.contains { $0.properties.isAlphabetic || $0.properties.numericType != nil }
        guard hasToken else { return nil }
        // An ASCII word has no soft hyphen to leave out.
        let indexable = ascii ? text : SearchText.indexable(text)
        let escaped = indexable.utf8.contains(0x22) ? indexable.replacingOccurrences(of: "\"", with: "\"\"") : indexable
        return "\"\(escaped)\"" + (prefix ? " *" : "")
    }
}

private extension Unicode.Scalar {
    /// White space between a query's terms (ASCII's without a property lookup).
    var isQuerySpace: Bool {
        isASCII ? self == " " || (0x09...0x0D).contains(value) : properties.isWhitespace
    }
}
