/// A field of a change that is missing, of the wrong type, or not allowed.
public struct FieldError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The field's path, e.g. `start.offset` or `tags`.
    public var field: String
    /// What is wrong with it, in words.
    public var reason: String

    /// A refusal of `field` for `reason`.
    package init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }

    /// The refusal in words, naming the field when there is one.
    public var description: String { field.isEmpty ? reason : "field \"\(field)\": \(reason)" }
}
