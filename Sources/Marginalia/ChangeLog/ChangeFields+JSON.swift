import Foundation

// MARK: - Encoding

extension ChangeFields {
    /// The fields as a JSON object, keys in a fixed order, so that the same change always has the same text.
    package var json: JSONValue {
        var members: [(String, JSONValue)] = []
        if let kind { members.append(("kind", .string(kind.rawValue))) }
        if let anchor {
            members.append(("document", .string(anchor.document)))
            members.append(("start", anchor.start.json))
            members.append(("end", anchor.end.json))
            members.append(("quote", .string(anchor.quote)))
            members.append(("prefix", .string(anchor.prefix)))
            members.append(("suffix", .string(anchor.suffix)))
            members.append(("edition", .string(anchor.edition)))
        }
        if let note { members.append(("note", .string(note))) }
        if let color { members.append(("color", .string(color))) }
        if !tags.isEmpty {
            members.append(("tags", .object(JSONObject(
                tags.sorted { $0.key < $1.key }.map { ($0.key, .bool($0.value)) }))))
        }
        if let deleted { members.append(("deleted", .bool(deleted))) }
        if let position {
            members.append(("passage", .string(position.passage)))
            members.append(("offset", .int(Int64(position.offset))))
        }
        if let revertTo { members.append(("revertTo", .string(revertTo))) }
        if let name { members.append(("name", .string(name))) }
        return .object(JSONObject(members))
    }

    /// The canonical JSON text of the fields, as stored in the log.
    package func jsonText() throws -> String { try JSONWriter.encodeString(json) }
}

extension TextPosition {
    /// `{"passage": …, "offset": …}`.
    package var json: JSONValue {
        .object(JSONObject([("passage", .string(passage)), ("offset", .int(Int64(offset)))]))
    }
}

// MARK: - Decoding

extension ChangeFields {
    private static let anchorKeys = ["document", "start", "end", "quote", "prefix", "suffix", "edition"]
    private static let knownKeys: Set<String> = Set(anchorKeys + ["kind", "note", "color", "tags", "deleted",
                                                                   "passage", "offset", "revertTo", "name"])

    /// Reads fields from JSON, strictly: every key known, every value of the right type and within bounds.
    ///
    /// This checks each value; `validate(for:on:)` then checks that the set of fields fits the operation.
    package init(json: JSONValue) throws(FieldError) {
        guard case .object(let object) = json else { throw FieldError(field: "fields", reason: "must be an object") }
        for key in object.keys where !Self.knownKeys.contains(key) {
            throw FieldError(field: key, reason: "unknown field")
        }
        self.init()
        if let value = object["kind"] {
            let name = try FieldReader.string(value, field: "kind")
            guard let kind = AnnotationKind(rawValue: name) else {
                throw FieldError(field: "kind", reason: "must be highlight, note or bookmark, not \"\(name)\"")
            }
            self.kind = kind
        }
        let anchorPresent = Self.anchorKeys.filter { object[$0] != nil }
        if !anchorPresent.isEmpty {
            if let missing = Self.anchorKeys.first(where: { object[$0] == nil }) {
                throw FieldError(field: missing, reason: "required with the other anchor fields")
            }
            anchor = try Self.anchor(from: object)
        }
        if let value = object["note"] {
            note = try FieldReader.text(value, field: "note", maxBytes: FieldLimits.maxTextBytes)
        }
        if let value = object["color"] {
            let color = try FieldReader.string(value, field: "color")
            if !color.isEmpty { try FieldReader.checkLabel(color, field: "color") }
            self.color = color
        }
        if let value = object["tags"] { tags = try Self.tags(from: value) }
        if let value = object["deleted"] {
            guard case .bool(let flag) = value else {
                throw FieldError(field: "deleted", reason: "must be true or false")
            }
            deleted = flag
        }
        if object["passage"] != nil || object["offset"] != nil { position = try Self.position(from: object) }
        if let value = object["revertTo"] {
            revertTo = try FieldReader.machineID(value, field: "revertTo")
        }
        if let value = object["name"] {
            let name = try FieldReader.string(value, field: "name")
            try FieldReader.checkLabel(name, field: "name")
            self.name = name
        }
    }

    /// The `tags` field: an object of at most `FieldLimits.maxTagsPerChange` labels, each true or false.
    private static func tags(from value: JSONValue) throws(FieldError) -> [String: Bool] {
        guard case .object(let tagObject) = value, tagObject.count > 0 else {
            throw FieldError(field: "tags", reason: "must be a non-empty object of tag: true|false")
        }
        guard tagObject.count <= FieldLimits.maxTagsPerChange else {
            throw FieldError(field: "tags", reason: "sets more than \(FieldLimits.maxTagsPerChange) tags")
        }
        var tags: [String: Bool] = [:]
        for (tag, present) in tagObject {
            try FieldReader.checkLabel(tag, field: "tags")
            guard case .bool(let flag) = present else {
                throw FieldError(field: "tags.\(tag)", reason: "must be true or false")
            }
            tags[tag] = flag
        }
        return tags
    }

    /// The `passage` and `offset` fields, which come together.
    private static func position(from object: JSONObject) throws(FieldError) -> TextPosition {
        guard let passage = object["passage"] else {
            throw FieldError(field: "passage", reason: "required with offset")
        }
        guard let offset = object["offset"] else {
            throw FieldError(field: "offset", reason: "required with passage")
        }
        return TextPosition(passage: try FieldReader.identifier(passage, field: "passage"),
                            offset: try FieldReader.offset(offset, field: "offset"))
    }

    /// Checks every value as `init(json:)` checks it when it reads an archive, with the same `FieldReader`
    /// rules, without building and reading back a JSON tree.
    func checkValues() throws(FieldError) {
        func position(_ position: TextPosition, _ field: String) throws(FieldError) {
            _ = try FieldReader.identifier(.string(position.passage), field: "\(field).passage")
            _ = try FieldReader.offset(.int(Int64(position.offset)), field: "\(field).offset")
        }
        if let anchor {
            _ = try FieldReader.identifier(.string(anchor.document), field: "document")
            try position(anchor.start, "start")
            try position(anchor.end, "end")
            _ = try FieldReader.text(.string(anchor.quote), field: "quote", maxBytes: FieldLimits.maxTextBytes)
            for (key, text) in [("prefix", anchor.prefix), ("suffix", anchor.suffix)] {
                _ = try FieldReader.text(.string(text), field: key, maxBytes: FieldLimits.maxContextLength * 4)
            }
            _ = try FieldReader.identifier(.string(anchor.edition), field: "edition")
            if anchor.start.passage == anchor.end.passage && anchor.end.offset < anchor.start.offset {
                throw FieldError(field: "end.offset", reason: "is before start.offset")
            }
        }
        if let note { _ = try FieldReader.text(.string(note), field: "note", maxBytes: FieldLimits.maxTextBytes) }
        if let color, !color.isEmpty { try FieldReader.checkLabel(color, field: "color") }
        guard tags.count <= FieldLimits.maxTagsPerChange else {
            throw FieldError(field: "tags", reason: "sets more than \(FieldLimits.maxTagsPerChange) tags")
        }
        for tag in tags.keys { try FieldReader.checkLabel(tag, field: "tags") }
        if let position = self.position {
            _ = try FieldReader.identifier(.string(position.passage), field: "passage")
            _ = try FieldReader.offset(.int(Int64(position.offset)), field: "offset")
        }
        if let revertTo { _ = try FieldReader.machineID(.string(revertTo), field: "revertTo") }
        if let name { try FieldReader.checkLabel(name, field: "name") }
    }

    private static func anchor(from object: JSONObject) throws(FieldError) -> Anchor {
        func text(_ key: String, maxBytes: Int = FieldLimits.maxTextBytes) throws(FieldError) -> String {
            try FieldReader.text(object[key] ?? .null, field: key, maxBytes: maxBytes)
        }
        let anchor = Anchor(
            document: try FieldReader.identifier(object["document"] ?? .null, field: "document"),
            start: try FieldReader.position(object["start"] ?? .null, field: "start"),
            end: try FieldReader.position(object["end"] ?? .null, field: "end"),
            quote: try text("quote"),
            prefix: try text("prefix", maxBytes: FieldLimits.maxContextLength * 4),
            suffix: try text("suffix", maxBytes: FieldLimits.maxContextLength * 4),
            edition: try FieldReader.identifier(object["edition"] ?? .null, field: "edition"))
        if anchor.start.passage == anchor.end.passage && anchor.end.offset < anchor.start.offset {
            throw FieldError(field: "end.offset", reason: "is before start.offset")
        }
        return anchor
    }
}
