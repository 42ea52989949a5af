/// Why `JSONWriter` refused a call; the writer's bytes and state are left as they were before it.
package enum JSONWriteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A `Double` that is NaN or infinite, which JSON cannot express.
    case nonFiniteNumber
    /// `key(_:)` outside an object.
    case keyOutsideObject
    /// A value inside an object where its key was due.
    case missingKey
    /// `key(_:)` or `endObject()` right after a key, whose value was due.
    case missingValue
    /// `endArray()` or `endObject()` that does not match the innermost open container.
    case mismatchedEnd
    /// A second value at the top level; call `newline()` or `reset()` between values.
    case valueAlreadyComplete
    /// `newline()` before the value of the line is complete.
    case incompleteValue
    /// `rawValue(_:)` with no bytes, which is no JSON value.
    case emptyRawValue

    package var description: String {
        switch self {
        case .nonFiniteNumber: "JSON cannot represent NaN or infinity"
        case .keyOutsideObject: "a key can only be written inside an object"
        case .missingKey: "a value inside an object needs a key first"
        case .missingValue: "the last key has no value"
        case .mismatchedEnd: "the end does not match the innermost open array or object"
        case .valueAlreadyComplete: "a complete value was already written; start a new line first"
        case .incompleteValue: "the value is not complete"
        case .emptyRawValue: "an encoded value cannot be empty"
        }
    }
}
