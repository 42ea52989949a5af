/// What an annotation is.
public enum AnnotationKind: String, Sendable, CaseIterable, Codable {
    case highlight
    case note
    case bookmark
}

/// A point in the content: a stable passage id and an offset into its text, in Unicode code points
/// (as the W3C Web Annotation TextPositionSelector counts).
public struct TextPosition: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The passage's id, e.g. `luceafarul.3`.
    public var passage: String
    /// The offset in the passage, in code points of its NFC text.
    public var offset: Int

    /// The position `offset` code points into `passage`.
    public init(passage: String, offset: Int) {
        self.passage = passage
        self.offset = offset
    }

    /// `passage:offset`, as the CLI prints and reads it.
    public var description: String { "\(passage):\(offset)" }
}

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

/// A highlight, note or bookmark, as it stands now (the projection of its changes).
public struct Annotation: Hashable, Sendable, Identifiable, Codable {
    /// The annotation's id (a UUID), the same on every replica.
    public var id: String
    /// Highlight, note or bookmark.
    public var kind: AnnotationKind
    /// Where in the content it is.
    public var anchor: Anchor
    /// The content edition the annotation was made on.
    public var createdEdition: String
    /// The note text (for a bookmark, its title); nil when there is none.
    public var note: String?
    /// The highlight color's name; nil when there is none.
    public var color: String?
    /// Sorted.
    public var tags: [String]
    /// A deleted annotation is a tombstone: it stays in the store and can be undeleted.
    public var deleted: Bool
    /// The clock of the change that created it.
    public var createdAt: HLC
    /// The clock of the newest change applied to it.
    public var updatedAt: HLC

    /// An annotation with the given values (as the store builds it from its changes).
    public init(id: String, kind: AnnotationKind, anchor: Anchor, createdEdition: String, note: String?,
                color: String?, tags: [String], deleted: Bool, createdAt: HLC, updatedAt: HLC) {
        self.id = id
        self.kind = kind
        self.anchor = anchor
        self.createdEdition = createdEdition
        self.note = note
        self.color = color
        self.tags = tags
        self.deleted = deleted
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// Where the reader was in a document.
public struct ReadingPosition: Hashable, Sendable, Identifiable, Codable {
    /// The document's id.
    public var document: String
    /// The position in the document.
    public var position: TextPosition
    /// The clock of the change that set it.
    public var updatedAt: HLC

    /// The document: a store holds one reading position per document.
    public var id: String { document }

    /// A reading position in `document` at `position`, set at `updatedAt`.
    public init(document: String, position: TextPosition, updatedAt: HLC) {
        self.document = document
        self.position = position
        self.updatedAt = updatedAt
    }
}
