// MARK: - Strings

extension CanonicalFieldsReader {
    /// A string: its bytes as they are when it has no escapes, else unescaped; not read for a control character,
    /// a malformed escape, a lone surrogate or bytes that are not UTF-8.
    mutating func readString() throws(NotCanonical) -> String {
        try expect(UInt8(ascii: "\""))
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return try validated(UnsafeBufferPointer(rebasing: bytes[start..<index - 1]))
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw NotCanonical() }
            index += 1
        }
        guard index < bytes.count else { throw NotCanonical() }
        var unescaped = Array(bytes[start..<index])
        return try readEscaped(into: &unescaped)
    }

    /// The rest of a string from its first backslash, appended to `unescaped`.
    private mutating func readEscaped(into unescaped: inout [UInt8]) throws(NotCanonical) -> String {
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return try unescaped.withUnsafeBufferPointer { buffer throws(NotCanonical) in try validated(buffer) }
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw NotCanonical() }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): unescaped.append(escape)
                case UInt8(ascii: "b"): unescaped.append(0x08)
                case UInt8(ascii: "f"): unescaped.append(0x0C)
                case UInt8(ascii: "n"): unescaped.append(0x0A)
                case UInt8(ascii: "r"): unescaped.append(0x0D)
                case UInt8(ascii: "t"): unescaped.append(0x09)
                case UInt8(ascii: "u"):
                    guard let encoded = UTF8.encode(try readUnicodeEscape()) else { throw NotCanonical() }
                    unescaped.append(contentsOf: encoded)
                default: throw NotCanonical()
                }
            default:
                guard byte >= 0x20 else { throw NotCanonical() }
                unescaped.append(byte)
            }
        }
        throw NotCanonical()
    }

    /// The scalar of `\uXXXX` after its `\u`, a surrogate pair taking the `\uXXXX` that follows; a lone surrogate
    /// is not read.
    private mutating func readUnicodeEscape() throws(NotCanonical) -> Unicode.Scalar {
        let unit = try readHex4()
        var value = unit
        switch unit {
        case 0xD800...0xDBFF:
            try expect(UInt8(ascii: "\\"))
            try expect(UInt8(ascii: "u"))
            let low = try readHex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw NotCanonical() }
            value = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
        case 0xDC00...0xDFFF:
            throw NotCanonical()
        default:
            break
        }
        guard let scalar = Unicode.Scalar(value) else { throw NotCanonical() }
        return scalar
    }

    /// Four hex digits, either case.
    private mutating func readHex4() throws(NotCanonical) -> UInt32 {
        guard index + 4 <= bytes.count else { throw NotCanonical() }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let nibble = HexDigit.value(of: bytes[index], uppercase: true) else { throw NotCanonical() }
            value = value << 4 | UInt32(nibble)
            index += 1
        }
        return value
    }

    /// The string of `utf8`, which must be well-formed UTF-8 (as the general reader requires).
    private func validated(_ utf8: UnsafeBufferPointer<UInt8>) throws(NotCanonical) -> String {
        guard let text = String(validating: utf8, as: UTF8.self) else { throw NotCanonical() }
        return text
    }
}
