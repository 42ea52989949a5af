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

/// A page of the passages a content search found, and how many there are in all.
public struct SearchPage: Hashable, Sendable {
    /// The passages of the page: those of the words as typed first, then of their other forms, then of their
    /// prefixes; by bm25 within each.
    public var hits: [SearchHit]
    /// How many passages the search found in all.
    public var total: Int
    /// Whether the content records word forms (`content build` of this version): without them, only the words as
    /// typed and their prefixes are looked for.
    public var formsAvailable: Bool
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
