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
