/// A strict RFC 8259 JSON reader over bytes, built to refuse hostile input precisely and to read
/// millions of archive lines quickly.
///
/// It refuses what lenient readers let through: invalid UTF-8 (overlong forms, encoded surrogates,
/// scalars above U+10FFFF, cut sequences), unescaped control characters and lone UTF-16 surrogate
/// escapes in strings, leading zeros, `NaN` and `Infinity`, numbers beyond `Double`, a byte order mark,
/// anything but whitespace after the value, and a key repeated in one object (compared after unescaping).
/// It never recurses: nesting is tracked on a heap stack and capped by `Limits.maxDepth`.
///
/// Keep one parser per stream of lines: it reuses its working buffers from one call to the next.
///
///     var parser = JSONParser()
///     for line in lines {
///         let change = try parser.parse(line)
///         print(change["op"]?.stringValue ?? "?")
///     }
///
/// Error offsets count bytes from the start of the given input (for a slice, from its first element).
package struct JSONParser: Sendable {
    /// Bounds that keep hostile input from costing more than it should.
    package struct Limits: Equatable, Sendable {
        /// How many arrays and objects may be open at once; one more is refused as "nesting deeper than N".
        package var maxDepth: Int
        /// The longest string or key accepted, in bytes of UTF-8 after unescaping.
        package var maxStringLength: Int

        /// Limits of `maxDepth` open containers and `maxStringLength` bytes per string.
        package init(maxDepth: Int = 64, maxStringLength: Int = 16 * 1024 * 1024) {
            self.maxDepth = maxDepth
            self.maxStringLength = maxStringLength
        }
    }

    /// The limits applied to every input.
    package var limits: Limits

    /// Working storage kept between calls, so that parsing a line does not allocate its stacks anew.
    private var storage = Storage()

    /// A parser applying `limits`.
    package init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Parses the single JSON text that makes up `input`.
    ///
    /// - Throws: `JSONParseError` with the offset of the first byte at fault.
    package mutating func parse(_ input: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSONValue {
        guard let base = input.baseAddress, input.count > 0 else {
            throw JSONParseError(offset: 0, reason: "empty input")
        }
        var reader = Reader(base: base, count: input.count, limits: limits, storage: takeStorage())
        defer { storage = reader.finish() }
        return try reader.parseDocument()
    }

    /// Parses the single JSON text that makes up `input`.
    ///
    /// - Throws: `JSONParseError` with the offset of the first byte at fault.
    package mutating func parse(_ input: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
        let result = input.withMemoryRebound(to: UInt8.self) { bytes in
            Result { () throws(JSONParseError) -> JSONValue in try parse(bytes) }
        }
        return try result.get()
    }

    /// Parses the single JSON text that makes up `input`.
    ///
    /// - Throws: `JSONParseError` with the offset of the first byte at fault.
    package mutating func parse(_ input: [UInt8]) throws(JSONParseError) -> JSONValue {
        try parse(input[...])
    }

    /// Parses the single JSON text that makes up `input`; offsets count from the slice's first element.
    ///
    /// - Throws: `JSONParseError` with the offset of the first byte at fault.
    package mutating func parse(_ input: ArraySlice<UInt8>) throws(JSONParseError) -> JSONValue {
        let result = input.withUnsafeBufferPointer { bytes in
            Result { () throws(JSONParseError) -> JSONValue in try parse(bytes) }
        }
        return try result.get()
    }

    /// Parses the single JSON text `input`; offsets count bytes of its UTF-8.
    ///
    /// - Throws: `JSONParseError` with the offset of the first byte at fault.
    package mutating func parse(_ input: String) throws(JSONParseError) -> JSONValue {
        var text = input
        let result = text.withUTF8 { bytes in
            Result { () throws(JSONParseError) -> JSONValue in try parse(bytes) }
        }
        return try result.get()
    }

    /// Parses one JSON text with a parser made for this call; for many inputs keep a parser instead.
    ///
    /// - Throws: `JSONParseError` with the offset of the first byte at fault.
    package static func parse(_ input: [UInt8], limits: Limits = Limits()) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(limits: limits)
        return try parser.parse(input)
    }

    /// Parses one JSON text with a parser made for this call; for many inputs keep a parser instead.
    ///
    /// - Throws: `JSONParseError` with the offset of the first byte at fault.
    package static func parse(_ input: String, limits: Limits = Limits()) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(limits: limits)
        return try parser.parse(input)
    }

    private mutating func takeStorage() -> Storage {
        var taken = Storage()
        swap(&taken, &storage)
        return taken
    }
}

// MARK: - Storage

extension JSONParser {
    /// One open array or object.
    struct Frame {
        /// Where its elements (arrays) or members (objects) start on their stack.
        var start: Int
        var isObject: Bool
        /// Whether its keys have outgrown linear search and live in a set on `Storage.keySets`.
        var hasKeySet: Bool
    }

    /// A stack element with a value that owns nothing, to leave behind in a slot whose value was moved out.
    protocol Vacatable {
        static var vacant: Self { get }
    }

    /// The stacks a parse works on; values of unfinished containers wait here until they close.
    struct Storage {
        var frames: [Frame] = []
        var elements: [JSONValue] = []
        var members: [JSONObject.Entry] = []
        /// A hash of each key on `members`, so that looking for a duplicate rarely compares strings.
        var keyHashes: [UInt64] = []
        var keySets: [Set<JSONObject.ExactKey>] = []
        var scratch: [UInt8] = []

        /// Empties the stacks, keeping their capacity unless one input made them unusually large.
        mutating func clear() {
            let keep = elements.capacity <= 4096 && members.capacity <= 4096 && scratch.capacity <= 1 << 20
            frames.removeAll(keepingCapacity: true)
            elements.removeAll(keepingCapacity: keep)
            members.removeAll(keepingCapacity: keep)
            keyHashes.removeAll(keepingCapacity: keep)
            keySets.removeAll()
            scratch.removeAll(keepingCapacity: keep)
        }
    }
}

extension JSONValue: JSONParser.Vacatable {
    static var vacant: JSONValue { .null }
}

extension JSONObject.Entry: JSONParser.Vacatable {
    static var vacant: JSONObject.Entry { JSONObject.Entry(key: "", value: .null) }
}
