// MARK: - An annotation as JSON

/// One value of an annotation's JSON, as the one member list (`Annotation.jsonMembers`) describes it: every form
/// of that JSON (`list --json`, the archive's state record, the text an import compares with a file's) is written
/// from this list, so that they cannot drift apart.
enum AnnotationMember {
    case string(String)
    case optionalString(String?)
    case position(TextPosition)
    case strings([String])
    case bool(Bool)

    /// The member as a JSON value.
    var json: JSONValue {
        switch self {
        case .string(let text): return .string(text)
        case .optionalString(let text): return text.map(JSONValue.string) ?? .null
        case .position(let position): return position.json
        case .strings(let texts): return .array(texts.map(JSONValue.string))
        case .bool(let value): return .bool(value)
        }
    }

    /// Writes the member's value with `writer`, as `json` would be written, without building it.
    func write(to writer: inout JSONWriter) throws {
        switch self {
        case .string(let text):
            try writer.string(text)
        case .optionalString(let text):
            if let text { try writer.string(text) } else { try writer.null() }
        case .position(let position):
            try writer.beginObject()
            try writer.key("passage")
            try writer.string(position.passage)
            try writer.key("offset")
            try writer.int(position.offset)
            try writer.endObject()
        case .strings(let texts):
            try writer.beginArray()
            for text in texts { try writer.string(text) }
            try writer.endArray()
        case .bool(let value):
            try writer.bool(value)
        }
    }
}

extension Annotation {
    /// The annotation as JSON: what `marginalia list --json` prints, and what an archive's state record holds
    /// after its `type`.
    package var json: JSONValue { .object(JSONObject(jsonMembers.map { ($0.key, $0.value.json) })) }

    /// The annotation's members in their canonical order: the one description of its JSON.
    var jsonMembers: [(key: String, value: AnnotationMember)] {
        [
            ("id", .string(id)),
            ("kind", .string(kind.rawValue)),
            ("document", .string(anchor.document)),
            ("start", .position(anchor.start)),
            ("end", .position(anchor.end)),
            ("quote", .string(anchor.quote)),
            ("prefix", .string(anchor.prefix)),
            ("suffix", .string(anchor.suffix)),
            ("note", .optionalString(note)),
            ("color", .optionalString(color)),
            ("tags", .strings(tags)),
            ("createdAt", .string(createdAt.iso8601)),
            ("updatedAt", .string(updatedAt.iso8601)),
            ("deleted", .bool(deleted)),
            ("edition", .string(createdEdition)),
            ("anchorEdition", .string(anchor.edition)),
        ]
    }
}

extension JSONWriter {
    /// Writes `annotation`'s JSON object, its members after `leading` ones (an archive's state record leads with
    /// its `type`), exactly the text of the `json` value it describes, without building that value: the export
    /// writes it to the line, the whole-log projection keeps it for an import to compare with a staged record.
    mutating func annotation(_ annotation: Annotation, leading: [(key: String, value: String)] = []) throws {
        try beginObject()
        for (key, value) in leading {
            try self.key(key)
            try string(value)
        }
        for (key, value) in annotation.jsonMembers {
            try self.key(key)
            try value.write(to: &self)
        }
        try endObject()
    }
}
