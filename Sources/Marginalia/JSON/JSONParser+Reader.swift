extension JSONParser {
    /// The state of one parse: the input, the position in it, and the stacks of open containers.
    struct Reader {
        let base: UnsafePointer<UInt8>
        let count: Int
        let maxDepth: Int
        let maxStringLength: Int
        var index = 0
        var storage: Storage
        /// Whether the last string read had escapes, so that its decoded bytes are in `storage.scratch`.
        var lastStringWasEscaped = false

        init(base: UnsafePointer<UInt8>, count: Int, limits: Limits, storage: Storage) {
            self.base = base
            self.count = count
            self.maxDepth = max(limits.maxDepth, 0)
            self.maxStringLength = max(limits.maxStringLength, 0)
            self.storage = storage
        }

        /// Hands the stacks back, emptied, for the next parse.
        mutating func finish() -> Storage {
            storage.clear()
            return storage
        }
    }
}

// MARK: - Structure

extension JSONParser.Reader {
    /// Reads the whole input as one value followed by nothing but whitespace.
    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        if count >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF {
            throw JSONParseError(offset: 0, reason: "byte order mark is not allowed")
        }
        let value = try parseValue()
        skipWhitespace()
        if index < count {
            throw JSONParseError(offset: index, reason: "trailing characters after the value")
        }
        return value
    }

    /// Reads one value, nested containers included, without recursion.
    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        var value: JSONValue
        nextValue: while true {
            skipWhitespace()
            guard index < count else { throw unexpected(at: index) }
            switch base[index] {
            case UInt8(ascii: "["):
                try open(isObject: false)
                skipWhitespace()
                guard index < count, base[index] == UInt8(ascii: "]") else { continue nextValue }
                index += 1
                storage.frames.removeLast()
                value = .array([])
            case UInt8(ascii: "{"):
                try open(isObject: true)
                skipWhitespace()
                guard index < count, base[index] == UInt8(ascii: "}") else {
                    try readKey()
                    continue nextValue
                }
                index += 1
                storage.frames.removeLast()
                value = .object(JSONObject())
            case UInt8(ascii: "\""):
                value = .string(try readString())
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = try readNumber()
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                value = .null
            default:
                throw unexpected(at: index)
            }
            // Hand the finished value to the innermost open container, closing every container that ends here.
            while let frame = storage.frames.last {
                if frame.isObject {
                    storage.members[storage.members.count - 1].value = value
                } else {
                    storage.elements.append(value)
                }
                skipWhitespace()
                guard index < count else { throw unexpected(at: index) }
                let byte = base[index]
                index += 1
                if byte == UInt8(ascii: ",") {
                    skipWhitespace()
                    if frame.isObject { try readKey() }
                    continue nextValue
                }
                if frame.isObject {
                    guard byte == UInt8(ascii: "}") else { throw unexpected(at: index - 1) }
                    value = .object(JSONObject(uniqueEntries: Self.popTail(of: &storage.members, from: frame.start)))
                    storage.keyHashes.removeSubrange(frame.start...)
                    if frame.hasKeySet { storage.keySets.removeLast() }
                } else {
                    guard byte == UInt8(ascii: "]") else { throw unexpected(at: index - 1) }
                    value = .array(Self.popTail(of: &storage.elements, from: frame.start))
                }
                storage.frames.removeLast()
            }
            return value
        }
    }

    /// Opens the array or object whose bracket is at `index`, if the depth limit allows.
    private mutating func open(isObject: Bool) throws(JSONParseError) {
        guard storage.frames.count < maxDepth else {
            throw JSONParseError(offset: index, reason: "nesting deeper than \(maxDepth)")
        }
        let start = isObject ? storage.members.count : storage.elements.count
        storage.frames.append(JSONParser.Frame(start: start, isObject: isObject, hasKeySet: false))
        index += 1
    }

    /// Reads `"key" :` of a member of the innermost (object) frame and pushes the member with a placeholder.
    private mutating func readKey() throws(JSONParseError) {
        guard index < count, base[index] == UInt8(ascii: "\"") else { throw unexpected(at: index) }
        let offset = index
        let key = try readString()
        let hash = lastStringWasEscaped
            ? storage.scratch.withUnsafeBufferPointer { Self.hash($0) }
            : Self.hash(UnsafeBufferPointer(start: base + offset + 1, count: index - offset - 2))
        try checkUnique(key, hash: hash, at: offset)
        storage.members.append(JSONObject.Entry(key: key, value: .null))
        storage.keyHashes.append(hash)
        skipWhitespace()
        guard index < count, base[index] == UInt8(ascii: ":") else { throw unexpected(at: index) }
        index += 1
    }

    /// Refuses `key` if the innermost object already has it; small objects are scanned, large ones hashed.
    private mutating func checkUnique(_ key: String, hash: UInt64, at offset: Int) throws(JSONParseError) {
        let frameIndex = storage.frames.count - 1
        let start = storage.frames[frameIndex].start
        let end = storage.members.count
        if !storage.frames[frameIndex].hasKeySet {
            if end - start < JSONObject.linearSearchLimit {
                for position in start..<end where storage.keyHashes[position] == hash {
                    if JSONObject.sameBytes(storage.members[position].key, key) { throw duplicateKey(key, at: offset) }
                }
                return
            }
            var keys = Set<JSONObject.ExactKey>(minimumCapacity: 2 * (end - start))
            for position in start..<end {
                keys.insert(JSONObject.ExactKey(storage.members[position].key))
            }
            storage.keySets.append(keys)
            storage.frames[frameIndex].hasKeySet = true
        }
        guard storage.keySets[storage.keySets.count - 1].insert(JSONObject.ExactKey(key)).inserted else {
            throw duplicateKey(key, at: offset)
        }
    }

    /// Moves the elements of `stack` from `start` on into a new array, leaving `stack` `start` long.
    ///
    /// Moving rather than copying spares a retain and a release per element; the vacated slots are
    /// refilled with `.null` (nothing to release) so that `stack` stays fully initialized.
    @inline(__always)
    private static func popTail<Element>(of stack: inout [Element], from start: Int) -> [Element]
    where Element: JSONParser.Vacatable {
        let moved = stack.count - start
        guard moved > 0 else { return [] }
        let tail = [Element](unsafeUninitializedCapacity: moved) { target, initialized in
            stack.withUnsafeMutableBufferPointer { source in
                guard let from = source.baseAddress, let to = target.baseAddress else { return }
                to.moveInitialize(from: from + start, count: moved)
                (from + start).initialize(repeating: .vacant, count: moved)
                initialized = moved
            }
        }
        stack.removeSubrange(start...)
        return tail
    }

    /// A 64-bit FNV-1a style hash of `bytes`, eight at a time, to tell most distinct keys apart cheaply.
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let prime: UInt64 = 0x0000_0100_0000_01B3
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(bytes.count)
        guard let start = bytes.baseAddress else { return hash }
        var position = 0
        while position + 8 <= bytes.count {
            let word = UnsafeRawPointer(start + position).loadUnaligned(as: UInt64.self)
            hash = (hash ^ word) &* prime
            hash ^= hash >> 29
            position += 8
        }
        while position < bytes.count {
            hash = (hash ^ UInt64(start[position])) &* prime
            position += 1
        }
        return hash
    }

    /// Reads the literal `true`, `false` or `null` starting at `index`.
    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let expected = literal.utf8Start
        for position in 0..<literal.utf8CodeUnitCount {
            let offset = index + position
            guard offset < count, base[offset] == expected[position] else { throw unexpected(at: offset) }
        }
        index += literal.utf8CodeUnitCount
    }

    /// Moves `index` past spaces, tabs, line feeds and carriage returns.
    @inline(__always)
    mutating func skipWhitespace() {
        while index < count {
            switch base[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }
}

// MARK: - Errors

extension JSONParser.Reader {
    /// "unexpected end of input" past the end, otherwise "unexpected character 'x'" or "unexpected byte 0xNN".
    func unexpected(at offset: Int) -> JSONParseError {
        guard offset < count else { return JSONParseError(offset: count, reason: "unexpected end of input") }
        return JSONParseError(offset: offset, reason: "unexpected " + Self.describe(base[offset]))
    }

    private func duplicateKey(_ key: String, at offset: Int) -> JSONParseError {
        JSONParseError(offset: offset, reason: "duplicate key " + Self.quoted(key))
    }

    /// "character 'x'" for printable ASCII, "byte 0xNN" otherwise.
    static func describe(_ byte: UInt8) -> String {
        guard (0x21...0x7E).contains(byte) else { return "byte " + hex(byte) }
        return "character '" + String(UnicodeScalar(byte)) + "'"
    }

    /// `0xNN`, two uppercase digits.
    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return byte < 0x10 ? "0x0" + digits : "0x" + digits
    }

    /// `key` in quotes for a message, with quotes, backslashes and controls escaped and long keys cut at 64.
    static func quoted(_ key: String) -> String {
        var text = "\""
        for (position, scalar) in key.unicodeScalars.enumerated() {
            if position == 64 {
                text += "…"
                break
            }
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\u{0}"..."\u{1F}", "\u{7F}":
                let digits = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }
}
