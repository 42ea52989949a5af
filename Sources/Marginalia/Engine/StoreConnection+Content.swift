import Foundation

// MARK: - Attaching content

extension StoreConnection {
    /// Attaches the content database at `path`, read-only, replacing any content attached before.
    ///
    /// Nothing is created when the file is missing, and nothing in the store changes.
    /// - Throws: `ContentError` when the file is missing, not a content database, or from a newer version.
    func attachContent(path: String) throws {
        try detachContent()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ContentError.missing(path: path)
        }
        guard !isDirectory.boolValue else { throw ContentError.notContent(path: path, reason: "it is a directory") }
        let signature = FileSignature.of(fileAt: path)
        guard signature?.isSQLite == true else {
            throw ContentError.notContent(
                path: path, reason: signature == .empty ? "it is empty" : "it is not an SQLite database")
        }
        do {
            try db.attachReadOnly(path: path, as: ContentSchema.schemaName)
        } catch let error as SQLiteError {
            throw ContentError.notContent(path: path, reason: error.message)
        }
        do {
            content = try readContentInfo(path: path)
        } catch {
            try? db.detach(ContentSchema.schemaName)
            throw error
        }
    }

    /// Detaches the content, if any.
    func detachContent() throws {
        guard content != nil else { return }
        content = nil
        try db.detach(ContentSchema.schemaName)
    }

    private func readContentInfo(path: String) throws -> ContentInfo {
        do {
            let applicationID = Int32(truncatingIfNeeded: try db.int(sql: "PRAGMA content.application_id") ?? 0)
            let version = Int32(truncatingIfNeeded: try db.int(sql: "PRAGMA content.user_version") ?? 0)
            guard applicationID == ContentSchema.applicationID else {
                let reason = applicationID == UserSchema.applicationID
                    ? "it is a user store, not content"
                    : "its application_id is \(applicationID), not \(ContentSchema.applicationID)"
                throw ContentError.notContent(path: path, reason: reason)
            }
            guard version <= ContentSchema.version else {
                throw ContentError.newerSchema(path: path, found: version, supported: ContentSchema.version)
            }
            guard version >= ContentSchema.oldestReadable else {
                throw ContentError.notContent(path: path, reason: "content schema \(version) is not supported")
            }
            var meta: [String: String] = [:]
            try db.forEachRow(sql: "SELECT key, value FROM content.meta") { meta[try $0.string(0)] = try $0.string(1) }
            guard let edition = meta["edition"] else {
                throw ContentError.notContent(path: path, reason: "it has no edition")
            }
            return ContentInfo(
                path: path, edition: edition, language: meta["language"] ?? "", title: meta["title"] ?? "",
                documentCount: Int(try db.int(sql: "SELECT count(*) FROM content.documents") ?? 0),
                passageCount: Int(try db.int(sql: "SELECT count(*) FROM content.passages") ?? 0),
                recordsForms: try Search(db: db).hasVocabulary())
        } catch let error as SQLiteError {
            throw ContentError.notContent(path: path, reason: error.message)
        }
    }

    /// The attached content, or an error saying why there is none.
    func requireContent() throws -> ContentInfo {
        try attached.require()
    }
}

extension Passage {
    init(row: Row) throws {
        self.init(id: try row.string(0), document: try row.string(1), order: try row.int(2), text: try row.string(3))
    }
}

extension ContentDocument {
    init(row: Row) throws {
        self.init(id: try row.string(0), title: try row.string(1), order: try row.int(2), passageCount: try row.int(3))
    }
}
