/// An annotation an import made an orphan, and why: where it is in the source, the start of its text, the reason
/// ("found at 2 places", "not found in the book").
public struct ImportOrphan: Equatable, Sendable {
    /// Where it is in the source, in the source's terms (`location 34-35`, `page 3`).
    public var location: String
    /// The start of its text (60 characters at most).
    public var text: String
    /// Why it was not placed.
    public var reason: String
}
