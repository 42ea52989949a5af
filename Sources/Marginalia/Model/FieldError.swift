/// A field of a change that is missing, of the wrong type, or not allowed.
package struct FieldError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The field's path, e.g. `start.offset` or `tags`.
    package var field: String
    /// What is wrong with it, in words.
    package var reason: String

    /// A refusal of `field` for `reason`.
    package init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }

    /// The refusal in words, naming the field when there is one.
    package var description: String { field.isEmpty ? reason : "field \"\(field)\": \(reason)" }
}
