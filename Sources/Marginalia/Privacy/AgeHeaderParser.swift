/// Reads an age header line by line, holding it to the grammar of https://c2sp.org/age#abnf-definition-of-file-header
/// and its canonical base64.
struct AgeHeaderParser {
    /// The stanzas read so far.
    private(set) var stanzas: [AgeStanza] = []
    /// The stanza whose body is being read: its arguments, line, and base64 so far.
    private var open: (arguments: [String], line: Int, text: [UInt8])?
    private var lineNumber = 0

    private static let arrow = Array("-> ".utf8)
    private static let macMark = Array("---".utf8)

    /// Reads the next header line, without its line feed.
    ///
    /// - Returns: The MAC when `line` is the header's last line, else nil.
    /// - Throws: `AgeError` naming the line and what is wrong with it.
    mutating func consume(_ line: ArraySlice<UInt8>) throws -> [UInt8]? {
        lineNumber += 1
        if lineNumber == 1 {
            try checkVersion(line)
            return nil
        }
        if let open {
            try continueBody(line, of: open)
            return nil
        }
        if line.starts(with: Self.arrow) {
            try openStanza(line)
            return nil
        }
        if line.starts(with: Self.macMark) {
            return try macLine(line)
        }
        throw malformed("expected a stanza (\"-> \") or the MAC line (\"--- \")")
    }

    private func checkVersion(_ line: ArraySlice<UInt8>) throws {
        guard !line.elementsEqual(AgeFormat.versionLine.dropLast()) else { return }
        guard line.starts(with: AgeFormat.versionPrefix) else { throw AgeError.notAgeFile }
        let version = line.dropFirst(AgeFormat.versionPrefix.count)
        guard !version.isEmpty, version.allSatisfy(Self.isVisible) else {
            throw malformed("the version line has a character outside printable ASCII, or no version")
        }
        throw AgeError.unsupportedVersion(String(decoding: version, as: UTF8.self))
    }

    private mutating func openStanza(_ line: ArraySlice<UInt8>) throws {
        let arguments = line.dropFirst(Self.arrow.count).split(separator: UInt8(ascii: " "),
                                                               omittingEmptySubsequences: false)
        guard !arguments.contains(where: \.isEmpty) else { throw malformed("a stanza has an empty argument") }
        guard arguments.allSatisfy({ $0.allSatisfy(Self.isVisible) }) else {
            throw malformed("a stanza argument has a character outside printable ASCII")
        }
        guard stanzas.count < AgeFormat.maxStanzas else {
            throw AgeError.headerTooLarge(limit: AgeFormat.maxHeaderSize)
        }
        open = (arguments.map { String(decoding: $0, as: UTF8.self) }, lineNumber, [])
    }

    private mutating func continueBody(_ line: ArraySlice<UInt8>, of stanza: (arguments: [String], line: Int,
                                                                              text: [UInt8])) throws {
        if line.starts(with: Self.arrow) || line.starts(with: Self.macMark) {
            throw malformed("the stanza before this line has no final body line shorter than 64 columns")
        }
        guard line.count <= 64 else { throw malformed("a stanza body line is longer than 64 columns") }
        let text = stanza.text + line
        guard line.count < 64 else {
            open?.text = text
            return
        }
        guard let body = AgeBase64.decode(text) else {
            throw malformed("the stanza body is not canonical unpadded base64")
        }
        stanzas.append(AgeStanza(arguments: stanza.arguments, body: body, line: stanza.line))
        open = nil
    }

    private func macLine(_ line: ArraySlice<UInt8>) throws -> [UInt8] {
        guard !stanzas.isEmpty else { throw malformed("the header has no recipient stanza") }
        guard line.count == 47, line.dropFirst(3).first == UInt8(ascii: " "),
              let mac = AgeBase64.decode(line.dropFirst(4)), mac.count == 32 else {
            throw malformed("the MAC line is not \"--- \" and 43 characters of canonical base64")
        }
        return mac
    }

    private func malformed(_ reason: String) -> AgeError {
        .malformedHeader(line: lineNumber, reason: reason)
    }

    /// VCHAR of RFC 5234: printable ASCII other than space.
    private static func isVisible(_ byte: UInt8) -> Bool { (0x21...0x7E).contains(byte) }
}
