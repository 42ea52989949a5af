/// The fast reader of a change's fields as the log holds them: the canonical JSON that `ChangeFields.jsonText()`
/// writes (its keys in `ChangeFields.json`'s order, no white space), read straight from its bytes into
/// `ChangeFields` without building a JSON tree.
///
///     {"kind":"note","document":"d1","start":{"passage":"p1","offset":0},…,"note":"a \"b\"\n"}
///
/// It reads that form only, and gives nil for anything else — white space, another key order, a key written with
/// an escape, a number that is not a plain integer, invalid UTF-8, a lone surrogate escape, a repeated tag — and for
/// fields whose values `ChangeFields.checkValues()` refuses. The caller then reads the text with the general
/// reader (`JSONParser` and `ChangeFields(json:)`), which gives its exact error or its own result; where this
/// reader gives fields, they are the ones the general reader gives for the same text (a test holds the two equal).
struct CanonicalFieldsReader {
    // What `+Strings` reads strings with is internal; the rest is private.
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    /// Text this reader leaves to the general reader.
    struct NotCanonical: Error {}

    /// The keys of the fields in the order `ChangeFields.json` writes them.
    private enum Key: Int {
        case kind, document, start, end, quote, prefix, suffix, edition, note, color, tags, deleted, passage, offset
        case revertTo, name

        /// The key's text as the canonical JSON writes it (it needs no escapes).
        var text: StaticString {
            switch self {
            case .kind: "kind"
            case .document: "document"
            case .start: "start"
            case .end: "end"
            case .quote: "quote"
            case .prefix: "prefix"
            case .suffix: "suffix"
            case .edition: "edition"
            case .note: "note"
            case .color: "color"
            case .tags: "tags"
            case .deleted: "deleted"
            case .passage: "passage"
            case .offset: "offset"
            case .revertTo: "revertTo"
            case .name: "name"
            }
        }
    }

    /// The fields `bytes` hold in canonical form, their values checked; nil when they are in another form or do not
    /// check (read them with the general reader then).
    static func read(_ bytes: UnsafeRawBufferPointer) -> ChangeFields? {
        guard bytes.count > 0 else { return nil }
        var reader = CanonicalFieldsReader(bytes: bytes.assumingMemoryBound(to: UInt8.self))
        do throws(NotCanonical) {
            let fields = try reader.readObject()
            guard reader.index == reader.bytes.count, (try? fields.checkValues()) != nil else { return nil }
            return fields
        } catch {
            return nil
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    // MARK: - The object

    /// The top-level object, its keys in canonical order, each at most once.
    private mutating func readObject() throws(NotCanonical) -> ChangeFields {
        try expect(UInt8(ascii: "{"))
        var fields = ChangeFields()
        if take(UInt8(ascii: "}")) { return fields }
        var anchor = AnchorParts()
        var passage: String?
        var offset: Int?
        var next = 0
        repeat {
            let key = try readKey(from: next)
            next = key.rawValue + 1
            switch key {
            case .kind:
                guard let kind = AnnotationKind(rawValue: try readString()) else { throw NotCanonical() }
                fields.kind = kind
            case .document: anchor.document = try readString()
            case .start: anchor.start = try readPosition()
            case .end: anchor.end = try readPosition()
            case .quote: anchor.quote = try readString()
            case .prefix: anchor.prefix = try readString()
            case .suffix: anchor.suffix = try readString()
            case .edition: anchor.edition = try readString()
            case .note: fields.note = try readString()
            case .color: fields.color = try readString()
            case .tags: fields.tags = try readTags()
            case .deleted: fields.deleted = try readBool()
            case .passage: passage = try readString()
            case .offset: offset = try readInteger()
            case .revertTo: fields.revertTo = try readString()
            case .name: fields.name = try readString()
            }
        } while take(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"))
        // The anchor's keys and the position's come all together or not at all.
        if !anchor.isEmpty {
            guard let value = anchor.anchor else { throw NotCanonical() }
            fields.anchor = value
        }
        switch (passage, offset) {
        case (nil, nil): break
        case let (passage?, offset?): fields.position = TextPosition(passage: passage, offset: offset)
        default: throw NotCanonical()
        }
        return fields
    }

    /// The anchor's keys as they are read.
    private struct AnchorParts {
        var document: String?
        var start: TextPosition?
        var end: TextPosition?
        var quote: String?
        var prefix: String?
        var suffix: String?
        var edition: String?

        var isEmpty: Bool {
            document == nil && start == nil && end == nil && quote == nil && prefix == nil && suffix == nil
                && edition == nil
        }

        /// The anchor, when every key was read.
        var anchor: Anchor? {
            guard let document, let start, let end, let quote, let prefix, let suffix, let edition else { return nil }
            return Anchor(document: document, start: start, end: end, quote: quote, prefix: prefix, suffix: suffix,
                          edition: edition)
        }
    }

    /// `"key":` for a key at `first` or after it in canonical order.
    private mutating func readKey(from first: Int) throws(NotCanonical) -> Key {
        try expect(UInt8(ascii: "\""))
        let start = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") { index += 1 }
        guard index < bytes.count else { throw NotCanonical() }
        let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
        index += 1
        try expect(UInt8(ascii: ":"))
        var candidate = first
        while let key = Key(rawValue: candidate) {
            let expected = key.text
            if expected.utf8CodeUnitCount == text.count
                && UnsafeBufferPointer(start: expected.utf8Start, count: expected.utf8CodeUnitCount)
                    .elementsEqual(text) {
                return key
            }
            candidate += 1
        }
        throw NotCanonical()
    }

    // MARK: - Values

    /// `{"passage":"…","offset":N}`, exactly so.
    private mutating func readPosition() throws(NotCanonical) -> TextPosition {
        try expect(UInt8(ascii: "{"))
        guard try readKey(from: Key.passage.rawValue) == .passage else { throw NotCanonical() }
        let passage = try readString()
        try expect(UInt8(ascii: ","))
        guard try readKey(from: Key.offset.rawValue) == .offset else { throw NotCanonical() }
        let offset = try readInteger()
        try expect(UInt8(ascii: "}"))
        return TextPosition(passage: passage, offset: offset)
    }

    /// A non-empty object of tags, each true or false; not read when a tag comes twice.
    private mutating func readTags() throws(NotCanonical) -> [String: Bool] {
        try expect(UInt8(ascii: "{"))
        var tags: [String: Bool] = [:]
        repeat {
            let tag = try readString()
            try expect(UInt8(ascii: ":"))
            // Dictionary keys compare by canonical equivalence; the general reader tells such tags apart.
            guard tags.updateValue(try readBool(), forKey: tag) == nil else { throw NotCanonical() }
        } while take(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"))
        return tags
    }

    /// `true` or `false`.
    private mutating func readBool() throws(NotCanonical) -> Bool {
        if take(literal: "true") { return true }
        if take(literal: "false") { return false }
        throw NotCanonical()
    }

    /// A non-negative integer as JSON writes it: `0`, or digits without a leading zero (at most 18 of them).
    private mutating func readInteger() throws(NotCanonical) -> Int {
        let start = index
        var value = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            // 18 digits fit an Int; a longer number is past every bound the fields allow.
            guard index - start < 18 else { throw NotCanonical() }
            value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            index += 1
        }
        let digits = index - start
        guard digits >= 1, digits == 1 || bytes[start] != UInt8(ascii: "0") else { throw NotCanonical() }
        return value
    }

    // MARK: - Bytes

    /// Steps over `byte`, which must come next.
    mutating func expect(_ byte: UInt8) throws(NotCanonical) {
        guard take(byte) else { throw NotCanonical() }
    }

    /// Steps over `byte` when it comes next.
    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Steps over `literal` when it comes next.
    private mutating func take(literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count,
              UnsafeBufferPointer(start: literal.utf8Start, count: count)
                .elementsEqual(bytes[index..<index + count]) else { return false }
        index += count
        return true
    }
}
