/// The members of a JSON object, in document order, with unique keys.
///
/// Keys are compared by their UTF-8 bytes, as JSON does: "é" (U+00E9) and "e\u{301}" are two keys.
/// Equality ignores member order: two objects are equal when they hold the same keys with equal values.
/// Looking a key up scans the members, which is the fastest way for the small objects of an archive line;
/// on an object with thousands of members, iterate instead of subscripting in a loop.
///
///     var fields: JSONObject = ["note": "Ce frumos", "tags": ["poezie"]]
///     fields["note"]?.stringValue  // "Ce frumos"
///     fields["rev"] = 2            // appended at the end
///     fields.keys                  // ["note", "tags", "rev"]
package struct JSONObject: Sendable {
    /// One member: its key and its value.
    package typealias Member = (key: String, value: JSONValue)

    /// One member as stored; a struct rather than a tuple, whose copies go through slower generic code.
    struct Entry {
        var key: String
        var value: JSONValue
    }

    /// The members, in order; read directly by the writer to spare copying each one.
    private(set) var entries: [Entry]

    /// An empty object.
    package init() {
        entries = []
    }

    /// An object with the given members in order; a repeated key keeps its first position and its last value.
    package init(_ pairs: [(String, JSONValue)]) {
        entries = []
        entries.reserveCapacity(pairs.count)
        if pairs.count <= Self.linearSearchLimit {
            for (key, value) in pairs {
                if let index = index(forKey: key) {
                    entries[index].value = value
                } else {
                    entries.append(Entry(key: key, value: value))
                }
            }
            return
        }
        var positions: [ExactKey: Int] = [:]
        for (key, value) in pairs {
            if let index = positions[ExactKey(key)] {
                entries[index].value = value
            } else {
                positions[ExactKey(key)] = entries.count
                entries.append(Entry(key: key, value: value))
            }
        }
    }

    /// Wraps members whose keys are already known to be unique (the parser checks them as it reads).
    init(uniqueEntries: [Entry]) {
        entries = uniqueEntries
    }

    /// The keys, in order.
    package var keys: [String] {
        entries.map(\.key)
    }

    /// The values, in the order of their keys.
    package var values: [JSONValue] {
        entries.map(\.value)
    }

    /// The value for `key`, or `nil` if there is none; setting `nil` removes the member, setting a value
    /// replaces it in place or appends a new member.
    package subscript(key: String) -> JSONValue? {
        get {
            guard let index = index(forKey: key) else { return nil }
            return entries[index].value
        }
        set {
            switch (index(forKey: key), newValue) {
            case (let index?, let value?): entries[index].value = value
            case (let index?, nil): entries.remove(at: index)
            case (nil, let value?): entries.append(Entry(key: key, value: value))
            case (nil, nil): break
            }
        }
    }

    /// The position of the member named `key`, if any.
    package func index(forKey key: String) -> Int? {
        entries.firstIndex { Self.sameBytes($0.key, key) }
    }

    /// Objects at most this large are searched member by member rather than through a hash table.
    static let linearSearchLimit = 16
}

// MARK: - Collection

extension JSONObject: RandomAccessCollection {
    package var startIndex: Int { entries.startIndex }
    package var endIndex: Int { entries.endIndex }

    /// The member at `position`, in document order.
    package subscript(position: Int) -> Member {
        let entry = entries[position]
        return (entry.key, entry.value)
    }
}

// MARK: - Equality

extension JSONObject: Equatable {
    /// Same keys with equal values, in any order.
    package static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (position, member) in lhs.entries.enumerated() {
            let other = rhs.entries[position]
            if sameBytes(other.key, member.key) {
                guard other.value == member.value else { return false }
            } else {
                guard let value = rhs[member.key], value == member.value else { return false }
            }
        }
        return true
    }

    /// Whether two strings have the same UTF-8 bytes (unlike `==`, which equates canonical equivalents).
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        let left = a.utf8
        let right = b.utf8
        guard left.count == right.count else { return false }
        let fast = left.withContiguousStorageIfAvailable { leftBytes in
            right.withContiguousStorageIfAvailable { rightBytes in leftBytes.elementsEqual(rightBytes) }
        }
        if let result = fast ?? nil { return result }
        return left.elementsEqual(right)
    }

    /// Whether `bytes` are the UTF-8 bytes of `text`.
    static func sameBytes(_ bytes: [UInt8], _ text: String) -> Bool {
        let utf8 = text.utf8
        guard bytes.count == utf8.count else { return false }
        return utf8.withContiguousStorageIfAvailable { $0.elementsEqual(bytes) } ?? utf8.elementsEqual(bytes)
    }

    /// A string hashed like `String` but equal only to byte-identical strings, for exact key sets.
    struct ExactKey: Hashable {
        let text: String

        init(_ text: String) {
            self.text = text
        }

        static func == (lhs: ExactKey, rhs: ExactKey) -> Bool {
            sameBytes(lhs.text, rhs.text)
        }

        // Byte-identical strings are `==` as `String`s, so they hash alike: hashing `text` is consistent.
        func hash(into hasher: inout Hasher) {
            hasher.combine(text)
        }
    }
}

// MARK: - Literals

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// An object with the given members in order; a repeated key keeps its first position and last value.
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }
}
