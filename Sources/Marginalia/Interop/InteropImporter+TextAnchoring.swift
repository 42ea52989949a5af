/// The part of the attached content a source's book is: the whole content, or some of its documents.
struct BookScope: Equatable {
    /// The documents to look in; nil for every document of the content.
    var documents: [String]?
    /// The one document the book is, when it is one: orphans of the book are filed under it.
    var document: String? { documents?.count == 1 ? documents?.first : nil }
}

/// Where a foreign item's text is in the content, or why it is not placed.
enum TextPlacement: Equatable {
    /// One good match: the anchor, with the content's own quote, prefix and suffix. Held by reference (`indirect`):
    /// an import keeps a placement for each highlight of a book, in a dictionary with room to spare, and a
    /// placement one pointer wide wastes less of it than one an anchor wide.
    indirect case anchored(Anchor)
    /// Equally good matches at several places (a line a poem repeats): the reading order of the book's other
    /// highlights may tell which one it is.
    case ambiguous([Anchor])
    /// No match.
    case unplaced(reason: String)
}

extension InteropImporter {
    /// How many passages full-text search proposes for each text.
    static var candidatePassages: Int { 30 }
    /// How many of the text's words the search looks for (the longest ones, which tell passages apart best).
    static var candidateWords: Int { 10 }

    /// Which part of the attached content a book is, by its title: the whole content when the title is the
    /// content's own, the documents whose title it is, or nil when the content does not hold the book. Titles are
    /// compared folded (case, diacritics, punctuation and spacing ignored).
    func scope(ofBook title: String, author: String?) throws -> BookScope? {
        let content = try store.requireContent()
        let wanted = FoldedText(title, level: .words).string
        guard !wanted.isEmpty else { return nil }
        if FoldedText(content.title, level: .words).string == wanted { return BookScope(documents: nil) }
        let matching = try store.attached.documents().filter { FoldedText($0.title, level: .words).string == wanted }.map(\.id)
        return matching.isEmpty ? nil : BookScope(documents: matching)
    }

    /// Finds `text` in the book's part of the content: full-text search proposes passages, and the anchor matcher
    /// looks in each with its neighbours (so a text may span passages), exactly, folded, then close. One best match
    /// is the place; two equally good ones at different places are none.
    func place(_ text: String, in scope: BookScope, cache: inout PassageCache) throws -> TextPlacement {
        let content = try store.requireContent()
        let needle = text.precomposedStringWithCanonicalMapping
        let length = needle.unicodeScalars.count
        guard length > 0 else { return .unplaced(reason: "it has no text to find") }
        if let exact = try exactPlacement(of: Array(needle.unicodeScalars), in: scope, cache: &cache) {
            return exact
        }
        var found: [AnchorKey: (Anchor, AnchorMatcher.Quality)] = [:]
        for (document, order) in try candidates(for: needle, in: scope) {
            let passages = try cache.passages(of: document, in: store)
            guard let index = passages.firstIndex(where: { $0.order == order }) else { continue }
            var lower = index
            var upper = index
            var before = 0
            var after = 0
            while lower > 0 && before < length {
                lower -= 1
                before += passages[lower].text.unicodeScalars.count + 1
            }
            while upper < passages.count - 1 && after < length {
                upper += 1
                after += passages[upper].text.unicodeScalars.count + 1
            }
            let span = PassageSpan(Array(passages[lower...upper]))
            let origin = span.starts[index - lower]
            guard let match = AnchorMatcher.locate(needle, in: span.scalars, near: origin), !match.range.isEmpty else {
                continue
            }
            let edges = Self.edgePunctuation(of: needle)
            var ranges = [match.range]
            // The matcher returns the nearest of equal matches; the others make the text ambiguous.
            switch match.quality {
            case .exact: ranges = span.scalars.exactOccurrences(of: Array(needle.unicodeScalars))
            case .folded:
                ranges = FoldedText(String(scalars: span.scalars), level: .words)
                    .occurrences(of: FoldedText(needle, level: .words))
            case .close: break
            }
            for occurrence in ranges where !occurrence.isEmpty {
                let range = match.quality == .exact ? occurrence : Self.widen(occurrence, in: span.scalars, by: edges)
                let anchor = Anchor(
                    document: document, start: span.position(ofStart: range.lowerBound),
                    end: span.position(ofEnd: range.upperBound), quote: span.text(range),
                    prefix: span.context(before: range.lowerBound), suffix: span.context(after: range.upperBound),
                    edition: content.edition)
                found[AnchorKey(anchor)] = (anchor, match.quality)
            }
        }
        guard let best = found.values.map(\.1).min() else {
            return .unplaced(reason: "its text is not in the content")
        }
        let places = found.values.filter { $0.1 == best }
        guard places.count == 1, let place = places.first else { return .ambiguous(places.map(\.0)) }
        guard place.0.quote.utf8.count <= FieldLimits.maxTextBytes else {
            return .unplaced(reason: "its text is longer than \(FieldLimits.maxTextBytes) bytes")
        }
        return .anchored(place.0)
    }

    /// The text's exact occurrences in the book, through each document's `ExactTextIndex`: the one place, or the
    /// several; nil when it is nowhere exactly (or too short for the index), for the matcher to look further.
    private func exactPlacement(of needle: [Unicode.Scalar], in scope: BookScope, cache: inout PassageCache) throws
        -> TextPlacement?
    {
        let content = try store.requireContent()
        var anchors: [Anchor] = []
        for document in try scope.documents ?? cache.documentIDs(in: store) {
            guard let index = try cache.exactIndex(of: document, in: store),
                  let ranges = index.occurrences(of: needle) else { return nil }
            let span = index.span
            for range in ranges {
                anchors.append(Anchor(
                    document: document, start: span.position(ofStart: range.lowerBound),
                    end: span.position(ofEnd: range.upperBound), quote: span.text(range),
                    prefix: span.context(before: range.lowerBound), suffix: span.context(after: range.upperBound),
                    edition: content.edition))
            }
        }
        guard !anchors.isEmpty else { return nil }
        guard anchors.count == 1 else { return .ambiguous(anchors) }
        guard anchors[0].quote.utf8.count <= FieldLimits.maxTextBytes else {
            return .unplaced(reason: "its text is longer than \(FieldLimits.maxTextBytes) bytes")
        }
        return .anchored(anchors[0])
    }

    /// How many punctuation marks (not spaces) the text has before its first letter and after its last: a folded
    /// match covers letters only, and takes them in when the content has them too.
    private static func edgePunctuation(of text: String) -> (leading: Int, trailing: Int) {
        let scalars = Array(text.unicodeScalars)
        func isMark(_ scalar: Unicode.Scalar) -> Bool { !scalar.isLetterOrDigit && !scalar.properties.isWhitespace }
        let leading = scalars.prefix { !$0.isLetterOrDigit }.filter(isMark).count
        let trailing = scalars.reversed().prefix { !$0.isLetterOrDigit }.filter(isMark).count
        return (leading, trailing)
    }

    /// `range` widened over as many punctuation marks as the text had at each end, where the content has them.
    private static func widen(_ range: Range<Int>, in text: [Unicode.Scalar], by edges: (leading: Int, trailing: Int))
        -> Range<Int>
    {
        func isMark(_ scalar: Unicode.Scalar) -> Bool { !scalar.isLetterOrDigit && !scalar.properties.isWhitespace }
        var lower = range.lowerBound
        var upper = range.upperBound
        var taken = 0
        while taken < edges.leading, lower > 0, isMark(text[lower - 1]) {
            lower -= 1
            taken += 1
        }
        taken = 0
        while taken < edges.trailing, upper < text.count, isMark(text[upper]) {
            upper += 1
            taken += 1
        }
        return lower..<upper
    }

    /// The passages full-text search proposes for `text` (document, order), best first.
    private func candidates(for text: String, in scope: BookScope) throws -> [(String, Int)] {
        var seen: Set<String> = []
        let words = FoldedText(text, level: .words).string.split(separator: " ").map(String.init)
            .filter { $0.count >= 2 && seen.insert($0).inserted }
            .sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
            .prefix(Self.candidateWords)
        guard !words.isEmpty else { return [] }
        // Every word is an FTS5 string ("…", a quote doubled inside), joined by OR: a text spanning two passages has
        // only some of its words in each. https://www.sqlite.org/fts5.html#fts5_strings
        let expression = words.map { "\"\($0.replacingOccurrences(of: "\"", with: "\"\""))\"" }
            .joined(separator: " OR ")
        let documents = try scope.documents.map { try ProjectionCache.jsonList($0) }
        return try db.fetchAll(
            sql: """
                SELECT p.document_id, p.ord FROM content.passages_fts
                JOIN content.passages p ON p.rowid = passages_fts.rowid
                WHERE passages_fts MATCH ? AND (?2 IS NULL OR p.document_id IN (SELECT value FROM json_each(?2)))
                ORDER BY rank LIMIT ?3
                """,
            arguments: [expression, documents, Self.candidatePassages]
        ) { row in (try row.string(0), try row.int(1)) }
    }
}

/// An anchor's place, for telling matches apart.
private struct AnchorKey: Hashable {
    let start: TextPosition
    let end: TextPosition

    init(_ anchor: Anchor) {
        start = anchor.start
        end = anchor.end
    }
}

/// The passages of documents read so far, so that each is read once for all the texts of an import.
struct PassageCache {
    private var loaded: [String: [Passage]] = [:]
    private var passageOrder: [String: Int] = [:]
    private var documentOrder: [String: Int]?

    private var passageStart: [String: Int] = [:]
    private var exactIndexes: [String: ExactTextIndex] = [:]
    private var indexedScalars = 0
    /// The most code points the exact-text indexes of one import cover (about 40 MB of index): past it, texts are
    /// placed by the full-text search and the matcher alone.
    static let maxIndexedScalars = 2_000_000

    private var allDocuments: [String]?

    /// The ids of every document of the content, read once.
    mutating func documentIDs(in store: some StoreAccess) throws -> [String] {
        if let allDocuments { return allDocuments }
        let ids = try store.attached.documents().map(\.id)
        allDocuments = ids
        return ids
    }

    /// The exact-text index of `document`, built on first use; nil once the indexes would outgrow their budget.
    mutating func exactIndex(of document: String, in store: some StoreAccess) throws -> ExactTextIndex? {
        if let index = exactIndexes[document] { return index }
        let passages = try passages(of: document, in: store)
        let size = passages.reduce(0) { $0 + $1.text.unicodeScalars.count + 1 }
        guard indexedScalars + size <= Self.maxIndexedScalars else { return nil }
        indexedScalars += size
        let index = ExactTextIndex(passages)
        exactIndexes[document] = index
        return index
    }

    mutating func passages(of document: String, in store: some StoreAccess) throws -> [Passage] {
        if let passages = loaded[document] { return passages }
        let passages = try store.attached.passages(document: document)
        loaded[document] = passages
        var start = 0
        for passage in passages {
            passageOrder[passage.id] = passage.order
            passageStart[passage.id] = start
            start += passage.text.unicodeScalars.count + 1
        }
        return passages
    }

    /// Where `position` is in the content as one number: its document's place, then the code points before it in
    /// its document (passages joined by a line feed). Two positions of one document are as far apart as their text.
    mutating func offset(of position: TextPosition, in document: String, store: some StoreAccess) throws -> Int {
        let order = try readingOrder(of: position, in: document, store: store)
        return order[0] << 40 + (passageStart[position.passage] ?? 0) + position.offset
    }

    /// Where `position` (in `document`) is in reading order: document, passage, offset.
    mutating func readingOrder(of position: TextPosition, in document: String, store: some StoreAccess) throws
        -> [Int]
    {
        if documentOrder == nil {
            var order: [String: Int] = [:]
            for document in try store.attached.documents() { order[document.id] = document.order }
            documentOrder = order
        }
        _ = try passages(of: document, in: store)
        return [documentOrder?[document] ?? 0, passageOrder[position.passage] ?? 0, position.offset]
    }
}
