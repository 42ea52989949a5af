/// Why `JSONParser` refused its input, and where.
///
///     do { _ = try JSONParser.parse(#"{"note":1,"note":2}"#) }
///     catch { print(error) }  // byte 10: duplicate key "note"
package struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The 0-based offset, in bytes from the start of the input, of the byte at fault.
    package var offset: Int
    /// What is wrong, for a person: `duplicate key "note"`, `invalid UTF-8 byte 0xC0`, `nesting deeper than 64`.
    package var reason: String

    /// An error at byte `offset` for `reason`.
    package init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    /// `byte N: reason`.
    package var description: String {
        "byte \(offset): \(reason)"
    }
}
