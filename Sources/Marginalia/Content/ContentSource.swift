import Foundation

/// A content source: the JSON that other tools produce and `marginalia content build` reads.
///
///     {"edition": "eminescu-2026.1", "language": "ro", "title": "Poezii",
///      "documents": [{"id": "luceafarul", "title": "Luceafărul",
///                     "passages": [{"id": "luceafarul.1", "text": "A fost odată ca-n povești,"}]}]}
///
/// Its JSON Schema is `schemas/content-source.schema.json`. Reading it is strict: unknown keys, empty or
/// duplicate ids and empty texts are refused, with the document or passage named.
package struct ContentSource: Hashable, Sendable {
    /// A passage of the source: its id and text.
    package struct Passage: Hashable, Sendable, Identifiable {
        /// The passage's id, unique in the source.
        package var id: String
        /// NFC-normalized.
        package var text: String

        /// A passage with the given id and text.
        package init(id: String, text: String) {
            self.id = id
            self.text = text
        }
    }

    /// A document of the source: its id, title and passages in reading order.
    package struct Document: Hashable, Sendable, Identifiable {
        /// The document's id, unique in the source.
        package var id: String
        /// The document's title.
        package var title: String
        /// Its passages, in reading order.
        package var passages: [Passage]

        /// A document with the given id, title and passages.
        package init(id: String, title: String, passages: [Passage]) {
            self.id = id
            self.title = title
            self.passages = passages
        }
    }

    /// The content's edition, e.g. `eminescu-2026.2`.
    package var edition: String
    /// The language of its text, e.g. `ro`.
    package var language: String
    /// The title of the whole content.
    package var title: String
    /// Its documents, in reading order.
    package var documents: [Document]

    /// A source with the given values, as they are (`init(bytes:path:)` reads and validates one).
    package init(edition: String, language: String, title: String, documents: [Document]) {
        self.edition = edition
        self.language = language
        self.title = title
        self.documents = documents
    }

    /// Reads and validates the source file at `path`.
    package init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FileManager.default.fileExists(atPath: path)
                ? ContentError.unreadable(path: path, reason: "permission denied or not a regular file")
                : ContentError.unreadable(path: path, reason: "no such file")
        }
        try self.init(bytes: Array(data), path: path)
    }

    /// Reads and validates a source from its bytes; `path` names it in errors.
    package init(bytes: [UInt8], path: String) throws {
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            let (line, column) = Self.lineAndColumn(of: error.offset, in: bytes)
            throw ContentError.invalidJSON(path: path, line: line, column: column, reason: error.reason)
        }
        var reader = SourceReader(path: path)
        self = try reader.source(from: json)
    }

    /// 1-based line and column (in characters) of a byte offset.
    static func lineAndColumn(of offset: Int, in bytes: [UInt8]) -> (Int, Int) {
        let end = min(max(offset, 0), bytes.count)
        var line = 1
        var lineStart = 0
        for index in 0..<end where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        // Count characters, not bytes: UTF-8 continuation bytes do not start a character.
        let column = bytes[lineStart..<end].filter { $0 & 0xC0 != 0x80 }.count + 1
        return (line, column)
    }
}

/// Walks a parsed source, checking every field and naming where it stands when it refuses.
private struct SourceReader {
    let path: String
    var passageIDs: [String: String] = [:]
    var documentIDs: Set<String> = []

    init(path: String) {
        self.path = path
    }

    func fail(_ location: String, _ reason: String) -> ContentError {
        ContentError.invalidSource(path: path, location: location, reason: reason)
    }

    mutating func source(from json: JSONValue) throws -> ContentSource {
        guard case .object(let root) = json else { throw fail("", "the top level must be an object") }
        try checkKeys(root, allowed: ["edition", "language", "title", "documents"], at: "")
        let edition = try identifier(root["edition"], field: "edition", at: "")
        let language = try text(root["language"], field: "language", at: "")
        let title = try text(root["title"], field: "title", at: "")
        guard case .array(let documentValues)? = root["documents"] else {
            throw fail("", "field \"documents\": required, an array of documents")
        }
        guard !documentValues.isEmpty else { throw fail("", "field \"documents\": must not be empty") }
        var documents: [ContentSource.Document] = []
        documents.reserveCapacity(documentValues.count)
        for (index, value) in documentValues.enumerated() {
            documents.append(try document(from: value, index: index))
        }
        return ContentSource(edition: edition, language: language, title: title, documents: documents)
    }

    private mutating func document(from value: JSONValue, index: Int) throws -> ContentSource.Document {
        var location = "documents[\(index)]"
        guard case .object(let object) = value else { throw fail(location, "must be an object") }
        let id = try identifier(object["id"], field: "id", at: location)
        location += " (id \"\(id)\")"
        guard documentIDs.insert(id).inserted else { throw fail(location, "duplicate document id \"\(id)\"") }
        try checkKeys(object, allowed: ["id", "title", "passages"], at: location)
        let title = try text(object["title"], field: "title", at: location)
        guard case .array(let passageValues)? = object["passages"] else {
            throw fail(location, "field \"passages\": required, an array of passages")
        }
        guard !passageValues.isEmpty else { throw fail(location, "field \"passages\": must not be empty") }
        var passages: [ContentSource.Passage] = []
        passages.reserveCapacity(passageValues.count)
        for (passageIndex, passageValue) in passageValues.enumerated() {
            var passageLocation = "\(location): passages[\(passageIndex)]"
            guard case .object(let passageObject) = passageValue else {
                throw fail(passageLocation, "must be an object")
            }
            let passageID = try identifier(passageObject["id"], field: "id", at: passageLocation)
            passageLocation += " (id \"\(passageID)\")"
            if let other = passageIDs[passageID] {
                throw fail(passageLocation, "duplicate passage id \"\(passageID)\" (also in document \"\(other)\")")
            }
            passageIDs[passageID] = id
            try checkKeys(passageObject, allowed: ["id", "text"], at: passageLocation)
            let passageText = try text(passageObject["text"], field: "text", at: passageLocation)
            passages.append(ContentSource.Passage(
                id: passageID, text: passageText.precomposedStringWithCanonicalMapping))
        }
        return ContentSource.Document(id: id, title: title.precomposedStringWithCanonicalMapping, passages: passages)
    }

    private func checkKeys(_ object: JSONObject, allowed: Set<String>, at location: String) throws {
        if let unknown = object.keys.first(where: { !allowed.contains($0) }) {
            let expected = allowed.sorted().joined(separator: ", ")
            throw fail(location, "unknown field \"\(unknown)\" (expected \(expected))")
        }
    }

    /// A non-empty text that is not only white space and holds no NUL.
    private func text(_ value: JSONValue?, field: String, at location: String) throws -> String {
        guard let value else { throw fail(location, "field \"\(field)\": required") }
        guard case .string(let text) = value else { throw fail(location, "field \"\(field)\": must be a string") }
        guard !text.trimmingSpaces.isEmpty else {
            throw fail(location, "field \"\(field)\": must not be empty or only white space")
        }
        guard !text.utf8.contains(0) else { throw fail(location, "field \"\(field)\": contains a NUL character") }
        return text
    }

    /// An id: non-empty, no control characters or surrounding white space, at most 256 bytes.
    private func identifier(_ value: JSONValue?, field: String, at location: String) throws -> String {
        guard let value else { throw fail(location, "field \"\(field)\": required") }
        do {
            return try FieldReader.identifier(value, field: field)
        } catch {
            throw fail(location, error.description)
        }
    }
}
