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
