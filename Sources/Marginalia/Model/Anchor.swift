/// Where an annotation attaches to the content, with what it saw there when it was placed.
///
/// The quote, prefix and suffix let the store tell, after the content is replaced, whether the text is still
/// at the same place, has moved, or is gone.
public struct Anchor: Hashable, Sendable, Codable {
    /// The document the passages belong to.
    public var document: String
    /// Where the range starts.
    public var start: TextPosition
    /// Where the range ends (exclusive).
    public var end: TextPosition
    /// The text between start and end; passages are joined by a line feed.
    public var quote: String
    /// Up to `Anchor.contextLength` code points before the start, in the start passage.
    public var prefix: String
    /// Up to `Anchor.contextLength` code points after the end, in the end passage.
    public var suffix: String
    /// The content edition the anchor was placed on.
    public var edition: String

    /// How many code points of context are kept on each side of the quote.
    package static let contextLength = 32

    /// An anchor with the given range, quote, context and edition.
    public init(document: String, start: TextPosition, end: TextPosition, quote: String, prefix: String,
                suffix: String, edition: String) {
        self.document = document
        self.start = start
        self.end = end
        self.quote = quote
        self.prefix = prefix
        self.suffix = suffix
        self.edition = edition
    }
}
