import Foundation

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
