/// What a content database holds: its edition and size.
public struct ContentInfo: Equatable, Sendable {
    /// The file it was read from.
    public var path: String
    public var edition: String
    public var language: String
    public var title: String
    public var documentCount: Int
    public var passageCount: Int

    public init(path: String, edition: String, language: String, title: String, documentCount: Int,
                passageCount: Int) {
        self.path = path
        self.edition = edition
        self.language = language
        self.title = title
        self.documentCount = documentCount
        self.passageCount = passageCount
    }
}

/// A passage of the attached content.
public struct Passage: Equatable, Sendable {
    public var id: String
    public var document: String
    /// Position within its document, from 0.
    public var order: Int
    /// NFC-normalized.
    public var text: String

    public init(id: String, document: String, order: Int, text: String) {
        self.id = id
        self.document = document
        self.order = order
        self.text = text
    }
}

/// A document of the attached content.
public struct ContentDocument: Equatable, Sendable {
    public var id: String
    public var title: String
    /// Position in the content, from 0.
    public var order: Int
    public var passageCount: Int

    public init(id: String, title: String, order: Int, passageCount: Int) {
        self.id = id
        self.title = title
        self.order = order
        self.passageCount = passageCount
    }
}
