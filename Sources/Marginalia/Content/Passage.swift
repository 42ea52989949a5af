/// A passage of the attached content.
public struct Passage: Hashable, Sendable, Identifiable {
    /// The passage's id, unique in the content, e.g. `luceafarul.3`.
    public var id: String
    /// The id of the document it belongs to.
    public var document: String
    /// Position within its document, from 0.
    public var order: Int
    /// NFC-normalized.
    public var text: String

    /// A passage with the given values.
    package init(id: String, document: String, order: Int, text: String) {
        self.id = id
        self.document = document
        self.order = order
        self.text = text
    }
}
