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
