/// Text of a foreign file: checked UTF-8, without byte-order marks, split into lines whatever their endings.
enum SourceText {
    /// The byte-order mark U+FEFF. Kindles write one at the start of the file, and the Kindle Touch one before
    /// every clipping.
    static let byteOrderMark: Unicode.Scalar = "\u{FEFF}"

    /// The file's JSON, a byte-order mark at its start skipped, or an error saying it is not JSON.
    static func json(_ bytes: [UInt8], file: String) throws -> JSONValue {
        var input = bytes[...]
        if input.starts(with: [0xEF, 0xBB, 0xBF]) { input = input.dropFirst(3) }
        do {
            return try JSONParser.parse(Array(input))
        } catch {
            throw InteropError(file: file, reason: "not JSON: \(error)")
        }
    }

    /// The file's text, or an error naming the first byte that is not UTF-8.
    static func decode(_ bytes: [UInt8], file: String) throws -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            var offset = 0
            var iterator = bytes.makeIterator()
            var decoder = UTF8()
            decoding: while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar): offset += UTF8.width(scalar)
                case .emptyInput, .error: break decoding
                }
            }
            throw InteropError(file: file, line: nil,
                               reason: "byte \(offset) is not UTF-8; the file must be UTF-8 text")
        }
        return text
    }

    /// The lines of `text`, split at CRLF, LF or CR, each without byte-order marks.
    static func lines(_ text: String) -> [String] {
        var lines: [String] = []
        var splitter = LineSplitter()
        splitter.feed(text) { lines.append($0) }
        splitter.finish { lines.append($0) }
        return lines
    }

    /// `text` without surrounding white space, in NFC (as the content stores its text).
    static func clean(_ text: some StringProtocol) -> String {
        String(String(text).trimmingSpaces).precomposedStringWithCanonicalMapping
    }
}
