/// One recipient stanza of an age header: its arguments and its body.
///
///     -> X25519 XEl0dJ6y3C7KZkgmgWUicg63EyXJiwBJW8PdYJ/cYBE
///     qRS0AMjdjPvZ/WT08U2KL4G+PIooA3hy38SvLpvaC1E
package struct AgeStanza: Equatable, Sendable {
    /// The arguments after `->`; the first is the stanza's type (`X25519`, `scrypt`, …).
    package var arguments: [String]
    /// The decoded body.
    package var body: [UInt8]
    /// The 1-based header line of the `->` line, for errors; 0 for a stanza made here.
    package var line: Int

    /// A stanza of `arguments` and `body`.
    package init(arguments: [String], body: [UInt8], line: Int = 0) {
        self.arguments = arguments
        self.body = body
        self.line = line
    }

    /// The stanza's type: its first argument.
    package var type: String { arguments.first ?? "" }

    /// The stanza as header text: the argument line, then the body in base64 wrapped at 64 columns, ending with a
    /// line shorter than 64 (empty when the base64 fills its last line).
    package var encoded: [UInt8] {
        var output = Array("-> \(arguments.joined(separator: " "))\n".utf8)
        let text = Array(AgeBase64.encode(body).utf8)
        var start = 0
        while true {
            let end = min(start + 64, text.count)
            output += text[start..<end] + [UInt8(ascii: "\n")]
            if end - start < 64 { break }
            start = end
        }
        return output
    }
}
