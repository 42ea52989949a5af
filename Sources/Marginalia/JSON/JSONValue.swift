/// One JSON value, as read by `JSONParser` and written by `JSONWriter`.
///
/// Numbers keep the form they were written in: a literal without fraction or exponent that fits
/// `Int64` is `.int`, any other finite number is `.double`. So `1` and `1.0` are different values.
///
/// Equality is exact rather than Unicode-aware: strings and object keys are equal only when their
/// UTF-8 bytes are (Swift's `String ==` would also equate canonically equivalent spellings such as
/// "é" and "e\u{301}", which JSON treats as different), doubles are equal only when their bit
/// patterns are (so `-0.0 != 0.0`, and a `.nan` built by hand equals itself), and objects are equal
/// when they hold the same keys with equal values, in any order.
///
///     let value: JSONValue = ["op": "update", "tags": ["poezie"], "rev": 3]
///     value["tags"]?[0]?.stringValue  // "poezie"
package enum JSONValue: Sendable {
    case null
    case bool(Bool)
    /// A number literal with no fraction and no exponent that fits `Int64`.
    case int(Int64)
    /// Any other finite number.
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

// MARK: - Accessors

extension JSONValue {
    /// Whether this is `.null`.
    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The Boolean of a `.bool`, otherwise `nil`.
    package var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The integer of an `.int`, otherwise `nil` (a `.double` is never converted).
    package var intValue: Int64? {
        if case .int(let value) = self { return value }
        return nil
    }

    /// The number of a `.double` or an `.int` (converted, possibly rounded), otherwise `nil`.
    package var doubleValue: Double? {
        switch self {
        case .double(let value): return value
        case .int(let value): return Double(value)
        default: return nil
        }
    }

    /// The text of a `.string`, otherwise `nil`.
    package var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The elements of an `.array`, otherwise `nil`.
    package var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members of an `.object`, otherwise `nil`.
    package var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The member named `key` of an `.object`; `nil` if absent or if this is not an object.
    package subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The element at `index` of an `.array`; `nil` if out of bounds or if this is not an array.
    package subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }
}

// MARK: - Equality

extension JSONValue: Equatable {
    /// Exact equality: byte-equal strings, bit-equal doubles, objects compared without regard to key order.
    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null):
            return true
        case (.bool(let a), .bool(let b)):
            return a == b
        case (.int(let a), .int(let b)):
            return a == b
        case (.double(let a), .double(let b)):
            return a.bitPattern == b.bitPattern
        case (.string(let a), .string(let b)):
            return JSONObject.sameBytes(a, b)
        case (.array(let a), .array(let b)):
            return a == b
        case (.object(let a), .object(let b)):
            return a == b
        default:
            return false
        }
    }
}

// MARK: - Literals

extension JSONValue: ExpressibleByBooleanLiteral {
    package init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    package init(integerLiteral value: Int64) {
        self = .int(value)
    }
}

extension JSONValue: ExpressibleByFloatLiteral {
    package init(floatLiteral value: Double) {
        self = .double(value)
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    package init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension JSONValue: ExpressibleByArrayLiteral {
    package init(arrayLiteral elements: JSONValue...) {
        self = .array(elements)
    }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// An object with the given members in order; a repeated key keeps its first position and last value.
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements))
    }
}
