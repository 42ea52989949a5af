/// What a content database holds: its edition and size.
public struct ContentInfo: Hashable, Sendable {
    /// The file it was read from.
    public var path: String
    /// The content's edition, e.g. `eminescu-2026.2`.
    public var edition: String
    /// The language of its text, e.g. `ro`.
    public var language: String
    /// The title of the whole content.
    public var title: String
    /// How many documents it holds.
    public var documentCount: Int
    /// How many passages it holds, in all its documents.
    public var passageCount: Int

    /// A description of content with the given values.
    package init(path: String, edition: String, language: String, title: String, documentCount: Int,
                passageCount: Int) {
        self.path = path
        self.edition = edition
        self.language = language
        self.title = title
        self.documentCount = documentCount
        self.passageCount = passageCount
    }
}
