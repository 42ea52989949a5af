/// A document of the attached content.
public struct ContentDocument: Hashable, Sendable, Identifiable {
    /// The document's id, unique in the content.
    public var id: String
    /// The document's title.
    public var title: String
    /// Position in the content, from 0.
    public var order: Int
    /// How many passages it holds.
    public var passageCount: Int

    /// A document with the given values.
    package init(id: String, title: String, order: Int, passageCount: Int) {
        self.id = id
        self.title = title
        self.order = order
        self.passageCount = passageCount
    }
}
