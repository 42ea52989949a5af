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

/// Typed, bounded reads of JSON values, each naming its field when it refuses.
enum FieldReader {
    /// Refuses a key of `object` that is neither in `required` nor in `optional`, then a required one it lacks.
    /// - Parameter path: what the fields' names begin with (`head.` for the keys of `head`).
    static func checkKeys(_ object: JSONObject, required: Set<String>, optional: Set<String> = [],
                          path: String = "") throws(FieldError) {
        var requiredSeen = 0
        for key in object.keys {
            if required.contains(key) {
                requiredSeen += 1
            } else if !optional.contains(key) {
                throw FieldError(field: path + key, reason: "unknown field")
            }
        }
        // Keys are unique (the parser refuses duplicates), so all required ones are there when the count matches.
        guard requiredSeen == required.count else {
            let missing = required.sorted().first(where: { object[$0] == nil }) ?? ""
            throw FieldError(field: path + missing, reason: "required")
        }
    }

    static func string(_ value: JSONValue, field: String) throws(FieldError) -> String {
        guard case .string(let text) = value else { throw FieldError(field: field, reason: "must be a string") }
        return text
    }

    /// A change id, as `Identifiers.isValidMachineID` allows it.
    static func machineID(_ value: JSONValue, field: String) throws(FieldError) -> String {
        let id = try string(value, field: field)
        guard Identifiers.isValidMachineID(id) else {
            throw FieldError(field: field, reason: "must be 1 to 64 ASCII letters, digits, '.', '_' or '-'")
        }
        return id
    }

    /// Free text (a note, a quote): any characters but NUL, at most `maxBytes` of UTF-8.
    static func text(_ value: JSONValue, field: String, maxBytes: Int) throws(FieldError) -> String {
        let text = try string(value, field: field)
        guard text.utf8.count <= maxBytes else {
            throw FieldError(field: field, reason: "is longer than \(maxBytes) bytes")
        }
        guard !text.utf8.contains(0) else { throw FieldError(field: field, reason: "contains a NUL character") }
        return text
    }

    /// An id: non-empty, at most `FieldLimits.maxIDBytes`, no control characters or surrounding spaces.
    static func identifier(_ value: JSONValue, field: String) throws(FieldError) -> String {
        let id = try string(value, field: field)
        guard !id.isEmpty else { throw FieldError(field: field, reason: "must not be empty") }
        guard id.utf8.count <= FieldLimits.maxIDBytes else {
            throw FieldError(field: field, reason: "is longer than \(FieldLimits.maxIDBytes) bytes")
        }
        guard !containsControl(id) else { throw FieldError(field: field, reason: "contains a control character") }
        guard !hasSurroundingSpace(id) else { throw FieldError(field: field, reason: "has surrounding spaces") }
        return id
    }

    /// Whether `text` holds a control character (general category Cc: U+0000–U+001F and U+007F–U+009F), read
    /// from its UTF-8 bytes: 0x00–0x1F, 0x7F, and 0xC2 followed by 0x80–0x9F.
    static func containsControl(_ text: String) -> Bool {
        var previous: UInt8 = 0
        for byte in text.utf8 {
            if byte < 0x20 || byte == 0x7F || (previous == 0xC2 && byte >= 0x80 && byte <= 0x9F) { return true }
            previous = byte
        }
        return false
    }

    /// Whether `text` starts or ends with white space (Unicode White_Space).
    static func hasSurroundingSpace(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, let last = text.unicodeScalars.last else { return false }
        return isSpace(first) || isSpace(last)
    }

    /// Whether `scalar` is white space (Unicode White_Space). In ASCII that is tab to carriage return and the space
    /// (https://www.unicode.org/Public/UCD/latest/ucd/PropList.txt, "White_Space"); only other scalars need the
    /// property lookup, which costs far more than the comparison.
    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.isASCII else { return scalar.properties.isWhitespace }
        return scalar == " " || (0x09...0x0D).contains(scalar.value)
    }

    /// A tag or a color: 1 to `FieldLimits.maxLabelLength` code points in NFC, no control characters, no
    /// surrounding spaces.
    ///
    /// NFC is required because Swift compares strings by canonical equivalence: two spellings of one tag
    /// (precomposed and decomposed) would otherwise be one dictionary key here and two elsewhere.
    static func checkLabel(_ label: String, field: String) throws(FieldError) {
        guard !label.isEmpty, label.unicodeScalars.count <= FieldLimits.maxLabelLength else {
            throw FieldError(field: field, reason: "\"\(label)\" must be 1 to \(FieldLimits.maxLabelLength) characters")
        }
        // ASCII is always NFC; only other text needs the (costly) normalization to compare with.
        guard label.utf8.allSatisfy({ $0 < 0x80 })
                || label.utf8.elementsEqual(label.precomposedStringWithCanonicalMapping.utf8) else {
            throw FieldError(field: field, reason: "\"\(label)\" is not in Unicode normalization form C (NFC)")
        }
        guard !containsControl(label), !hasSurroundingSpace(label) else {
            throw FieldError(field: field, reason: "\"\(label)\" has control characters or surrounding spaces")
        }
    }

    static func offset(_ value: JSONValue, field: String) throws(FieldError) -> Int {
        guard case .int(let number) = value, number >= 0, number <= FieldLimits.maxOffset else {
            throw FieldError(field: field, reason: "must be an integer from 0 to \(FieldLimits.maxOffset)")
        }
        return Int(number)
    }

    static func position(_ value: JSONValue, field: String) throws(FieldError) -> TextPosition {
        guard case .object(let object) = value else {
            throw FieldError(field: field, reason: "must be an object with passage and offset")
        }
        if let extra = object.keys.first(where: { $0 != "passage" && $0 != "offset" }) {
            throw FieldError(field: "\(field).\(extra)", reason: "unknown field")
        }
        return TextPosition(
            passage: try identifier(object["passage"] ?? .null, field: "\(field).passage"),
            offset: try offset(object["offset"] ?? .null, field: "\(field).offset"))
    }
}

extension String {
    /// The string without leading and trailing white space (spaces, tabs, line breaks, and their Unicode kin).
    var trimmingSpaces: Substring {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return Substring(scalars[first...last])
    }
}
