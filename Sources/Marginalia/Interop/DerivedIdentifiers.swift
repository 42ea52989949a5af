/// Ids derived from what a foreign item is, so that importing the same file again makes the same ids (and so adds
/// nothing).
enum DerivedIdentifiers {
    /// A UUID made from the SHA-256 of `parts` joined by U+001F: a version 8 (custom) UUID, RFC 9562 section 5.8.
    static func uuid(_ parts: [String]) throws -> String {
        let digest = try SHA256Digest.digest(of: Array(parts.joined(separator: "\u{1F}").utf8))
        var bytes = Array(digest.prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return Identifiers.uuidText(bytes)
    }

    /// The device id under which changes read from `format` are recorded, e.g. `import-kindle`.
    static func device(of format: InteropFormat) -> String { "import-\(format.rawValue)" }


    /// `text` fit for an id: no control characters, no surrounding spaces, at most `FieldLimits.maxIDBytes` bytes
    /// (cut at a character boundary).
    static func identifier(_ text: String) -> String {
        var result = ""
        var bytes = 0
        let isControl = { (scalar: Unicode.Scalar) in scalar.properties.generalCategory == .control }
        for character in text where !character.unicodeScalars.contains(where: isControl) {
            let width = character.utf8.count
            guard bytes + width <= FieldLimits.maxIDBytes else { break }
            result.append(character)
            bytes += width
        }
        let trimmed = String(result.trimmingSpaces)
        return trimmed.isEmpty ? "untitled" : trimmed
    }

    /// `text` fit for a tag or color, or nil when nothing of it is left.
    static func label(_ text: String) -> String? {
        let cleaned = String(SourceText.clean(text).unicodeScalars
            .filter { $0.properties.generalCategory != .control }.prefix(FieldLimits.maxLabelLength))
        let trimmed = SourceText.clean(cleaned)
        return trimmed.isEmpty ? nil : trimmed
    }
}
