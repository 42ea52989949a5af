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
    /// Whether it records its words' forms (`vocabulary`, content schema 2), for a search in every form.
    package var recordsForms: Bool

    /// A description of content with the given values.
    package init(path: String, edition: String, language: String, title: String, documentCount: Int,
                passageCount: Int, recordsForms: Bool = false) {
        self.recordsForms = recordsForms
        self.path = path
        self.edition = edition
        self.language = language
        self.title = title
        self.documentCount = documentCount
        self.passageCount = passageCount
    }
}
