/// Reads an age header from the start of a `ByteSource`, and no further than `AgeFormat.maxHeaderSize` bytes.
enum AgeHeaderReader {
    /// The header at the start of `source`, and the bytes read past its end (the start of the payload).
    ///
    /// - Throws: `AgeError` (not an age file, armored, malformed, too large, truncated), or `source`'s error.
    static func read(from source: any ByteSource) throws -> (header: AgeHeader, rest: [UInt8]) {
        var buffer: [UInt8] = []
        var parser = AgeHeaderParser()
        var lineStart = 0
        var scanned = 0
        var ended = false
        while true {
            guard let end = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) else {
                scanned = buffer.count
                guard !ended else { throw endFailure(buffer) }
                guard buffer.count <= AgeFormat.maxHeaderSize else {
                    throw AgeError.headerTooLarge(limit: AgeFormat.maxHeaderSize)
                }
                ended = try fill(&buffer, from: source)
                if lineStart == 0, AgeFormat.looksLikeArmoredAge(buffer), buffer.count >= AgeFormat.armorBegin.count
                    || ended { throw AgeError.armored }
                continue
            }
            if let mac = try parser.consume(buffer[lineStart..<end]) {
                let header = AgeHeader(stanzas: parser.stanzas, mac: mac, macInput: Array(buffer[..<(lineStart + 3)]))
                return (header, Array(buffer[(end + 1)...]))
            }
            lineStart = end + 1
            scanned = lineStart
            guard lineStart <= AgeFormat.maxHeaderSize else {
                throw AgeError.headerTooLarge(limit: AgeFormat.maxHeaderSize)
            }
        }
    }

    /// Appends what `source` gives to `buffer`; whether it is at its end.
    private static func fill(_ buffer: inout [UInt8], from source: any ByteSource) throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
        buffer += chunk.prefix(count)
        return count == 0
    }

    /// Why a file that ended before its header did is refused.
    private static func endFailure(_ buffer: [UInt8]) -> AgeError {
        if buffer.isEmpty { return .notAgeFile }
        let prefix = AgeFormat.versionPrefix
        if buffer.starts(with: prefix) || prefix.starts(with: buffer) { return .truncatedHeader }
        return .notAgeFile
    }
}
