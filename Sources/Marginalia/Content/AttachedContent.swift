/// The content attached to a connection, read: its documents and passages, by id and in order. Every read throws
/// `StoreError.contentUnavailable` when no content is attached.
struct AttachedContent {
    /// The connection the content is attached to (as the `content` schema).
    let db: any Database
    /// What the attached content is, or nil when none is.
    let info: ContentInfo?

    /// What the attached content is, or an error saying why there is none.
    func require() throws -> ContentInfo {
        guard let info else { throw StoreError.contentUnavailable(reason: "no content is attached") }
        return info
    }

    /// The passage with this id in the attached content, or nil.
    func passage(id: String) throws -> Passage? {
        _ = try require()
        return try db.fetchOne(
            sql: "SELECT id, document_id, ord, text FROM content.passages WHERE id = ?", arguments: [id],
            Passage.init(row:))
    }

    /// The passage at `order` in `document`, or nil.
    func passage(document: String, order: Int) throws -> Passage? {
        _ = try require()
        return try db.fetchOne(
            sql: "SELECT id, document_id, ord, text FROM content.passages WHERE document_id = ? AND ord = ?",
            arguments: [document, order], Passage.init(row:))
    }

    /// Every passage of `document`, in order.
    func passages(document: String) throws -> [Passage] {
        _ = try require()
        return try db.fetchAll(
            sql: "SELECT id, document_id, ord, text FROM content.passages WHERE document_id = ? ORDER BY ord",
            arguments: [document], Passage.init(row:))
    }

    /// The passages of `document` from order `first` through `last`, in order.
    func passages(document: String, from first: Int, through last: Int) throws -> [Passage] {
        _ = try require()
        return try db.fetchAll(
            sql: """
                SELECT id, document_id, ord, text FROM content.passages
                WHERE document_id = ? AND ord BETWEEN ? AND ? ORDER BY ord
                """,
            arguments: [document, first, last], Passage.init(row:))
    }

    /// The document with this id, or nil.
    func document(id: String) throws -> ContentDocument? {
        _ = try require()
        return try db.fetchOne(
            sql: """
                SELECT d.id, d.title, d.ord, (SELECT count(*) FROM content.passages p WHERE p.document_id = d.id)
                FROM content.documents d WHERE d.id = ?
                """,
            arguments: [id], ContentDocument.init(row:))
    }

    /// Every document, in order.
    func documents() throws -> [ContentDocument] {
        _ = try require()
        return try db.fetchAll(
            sql: """
                SELECT d.id, d.title, d.ord, count(p.id) FROM content.documents d
                LEFT JOIN content.passages p ON p.document_id = d.id GROUP BY d.id ORDER BY d.ord
                """,
            ContentDocument.init(row:))
    }
}
