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
