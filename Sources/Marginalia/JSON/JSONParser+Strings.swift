// MARK: - Strings

extension JSONParser.Reader {
    /// Reads the string whose opening quote is at `index`.
    ///
    /// A string without escapes becomes a `String` straight from the input bytes; the first backslash
    /// switches to decoding into the scratch buffer.
    mutating func readString() throws(JSONParseError) -> String {
        let quote = index
        try scanString()
        if lastStringWasEscaped {
            return String(decoding: storage.scratch, as: UTF8.self)
        }
        return String(decoding: UnsafeBufferPointer(start: base + quote + 1, count: index - quote - 2), as: UTF8.self)
    }

    /// Checks the string whose opening quote is at `index` and moves `index` past its closing quote.
    ///
    /// A string without escapes stays in the input; the first backslash switches to decoding into
    /// the scratch buffer, copying runs of plain bytes at once, and sets `lastStringWasEscaped`.
    private mutating func scanString() throws(JSONParseError) {
        let quote = index
        let start = index + 1
        var position = start
        while true {
            position = plainRunEnd(from: position)
            guard position - start <= maxStringLength else { throw tooLong(quote) }
            guard position < count else { throw unterminated(quote) }
            let byte = base[position]
            if byte == UInt8(ascii: "\"") {
                index = position + 1
                lastStringWasEscaped = false
                return
            }
            if byte == UInt8(ascii: "\\") {
                return try scanEscapedString(quote: quote, escape: position)
            }
            if byte < 0x20 {
                throw controlCharacter(at: position)
            }
            position = try endOfScalar(at: position)
        }
    }

    /// Continues `scanString` from the first backslash, at `escape`, decoding into the scratch buffer.
    private mutating func scanEscapedString(quote: Int, escape: Int) throws(JSONParseError) {
        storage.scratch.removeAll(keepingCapacity: true)
        append(from: quote + 1, to: escape)
        var position = escape
        while true {
            guard position < count else { throw unterminated(quote) }
            let byte = base[position]
            if byte == UInt8(ascii: "\"") {
                index = position + 1
                lastStringWasEscaped = true
                return
            }
            if byte == UInt8(ascii: "\\") {
                position = try readEscape(at: position, quote: quote)
            } else if byte < 0x20 {
                throw controlCharacter(at: position)
            } else {
                let end = try endOfScalar(at: position)
                append(from: position, to: end)
                position = end
            }
            let runStart = position
            position = plainRunEnd(from: position)
            append(from: runStart, to: position)
            guard storage.scratch.count <= maxStringLength else { throw tooLong(quote) }
        }
    }

    /// Decodes the escape sequence whose backslash is at `escape` into the scratch buffer; returns the next offset.
    private mutating func readEscape(at escape: Int, quote: Int) throws(JSONParseError) -> Int {
        guard escape + 1 < count else { throw unterminated(quote) }
        let decoded: UInt8
        switch base[escape + 1] {
        case UInt8(ascii: "\""): decoded = 0x22
        case UInt8(ascii: "\\"): decoded = 0x5C
        case UInt8(ascii: "/"): decoded = 0x2F
        case UInt8(ascii: "b"): decoded = 0x08
        case UInt8(ascii: "f"): decoded = 0x0C
        case UInt8(ascii: "n"): decoded = 0x0A
        case UInt8(ascii: "r"): decoded = 0x0D
        case UInt8(ascii: "t"): decoded = 0x09
        case UInt8(ascii: "u"): return try readUnicodeEscape(at: escape, quote: quote)
        default:
            let byte = base[escape + 1]
            let shown = (0x21...0x7E).contains(byte) ? "'\\" + String(UnicodeScalar(byte)) + "'" : Self.hex(byte)
            throw JSONParseError(offset: escape, reason: "invalid escape " + shown)
        }
        storage.scratch.append(decoded)
        return escape + 2
    }

    /// Decodes `\uXXXX`, or a `\uD8XX\uDCXX` surrogate pair, starting at `escape`; returns the next offset.
    private mutating func readUnicodeEscape(at escape: Int, quote: Int) throws(JSONParseError) -> Int {
        let unit = try hexQuad(at: escape, quote: quote)
        var scalar = unit
        var end = escape + 6
        switch unit {
        case 0xD800...0xDBFF:
            guard end + 1 < count, base[end] == UInt8(ascii: "\\"), base[end + 1] == UInt8(ascii: "u") else {
                throw loneSurrogate(unit, at: escape)
            }
            let low = try hexQuad(at: end, quote: quote)
            guard (0xDC00...0xDFFF).contains(low) else { throw loneSurrogate(unit, at: escape) }
            scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            end += 6
        case 0xDC00...0xDFFF:
            throw loneSurrogate(unit, at: escape)
        default:
            break
        }
        appendUTF8(scalar)
        return end
    }

    /// The value of the four hex digits after the `\u` at `escape`.
    private func hexQuad(at escape: Int, quote: Int) throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for position in escape + 2 ..< escape + 6 {
            guard position < count else { throw unterminated(quote) }
            guard let digit = HexDigit.value(of: base[position], uppercase: true) else {
                throw JSONParseError(offset: escape, reason: "invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case ..<0x80:
            storage.scratch.append(UInt8(scalar))
        case ..<0x800:
            storage.scratch.append(UInt8(0xC0 | scalar >> 6))
            storage.scratch.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            storage.scratch.append(UInt8(0xE0 | scalar >> 12))
            storage.scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            storage.scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            storage.scratch.append(UInt8(0xF0 | scalar >> 18))
            storage.scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            storage.scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            storage.scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    private mutating func append(from start: Int, to end: Int) {
        guard end > start else { return }
        storage.scratch.append(contentsOf: UnsafeBufferPointer(start: base + start, count: end - start))
    }

    /// The offset of the first byte at or after `start` that is a quote, a backslash, a control or non-ASCII.
    ///
    /// Eight bytes at a time: each term of `mask` sets the high bit of the bytes it is looking for, and
    /// borrows only spill above a byte that is found, so the lowest set bit marks the first such byte.
    @inline(__always)
    private func plainRunEnd(from start: Int) -> Int {
        var position = start
        let ones: UInt64 = 0x0101_0101_0101_0101
        while position &+ 8 <= count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
            let control = (word &- ones &* 0x20) & ~word
            let quotes = word ^ (ones &* 0x22)
            let backslashes = word ^ (ones &* 0x5C)
            let mask = (control | (quotes &- ones) & ~quotes | (backslashes &- ones) & ~backslashes | word)
                & (ones &* 0x80)
            if mask != 0 {
                return position &+ mask.trailingZeroBitCount &>> 3
            }
            position &+= 8
        }
        while position < count {
            let byte = base[position]
            if byte < 0x20 || byte >= 0x80 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return position
            }
            position += 1
        }
        return position
    }

    /// Checks the UTF-8 sequence whose first byte, at `start`, is not ASCII; returns the offset after it.
    private func endOfScalar(at start: Int) throws(JSONParseError) -> Int {
        let lead = base[start]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF:
            length = 2
        case 0xE0...0xEF:
            length = 3
            if lead == 0xE0 { low = 0xA0 }
            if lead == 0xED { high = 0x9F }
        case 0xF0...0xF4:
            length = 4
            if lead == 0xF0 { low = 0x90 }
            if lead == 0xF4 { high = 0x8F }
        default:
            throw JSONParseError(offset: start, reason: "invalid UTF-8 byte " + Self.hex(lead))
        }
        for position in start + 1 ..< start + length {
            guard position < count, (0x80...0xBF).contains(base[position]) else {
                throw JSONParseError(offset: start, reason: "truncated UTF-8 sequence starting with " + Self.hex(lead))
            }
        }
        let second = base[start + 1]
        if second < low {
            throw JSONParseError(offset: start, reason: "overlong UTF-8 sequence starting with " + Self.hex(lead))
        }
        if second > high {
            let reason = lead == 0xED ? "UTF-8 encoded surrogate" : "UTF-8 sequence above U+10FFFF"
            throw JSONParseError(offset: start, reason: reason + " starting with " + Self.hex(lead))
        }
        return start + length
    }

    // MARK: Errors

    private func unterminated(_ quote: Int) -> JSONParseError {
        JSONParseError(offset: quote, reason: "unterminated string")
    }

    private func tooLong(_ quote: Int) -> JSONParseError {
        JSONParseError(offset: quote, reason: "string longer than \(maxStringLength) bytes")
    }

    private func controlCharacter(at offset: Int) -> JSONParseError {
        JSONParseError(offset: offset, reason: "unescaped control character " + Self.hex(base[offset]) + " in string")
    }

    private func loneSurrogate(_ unit: UInt32, at offset: Int) -> JSONParseError {
        let digits = String(unit, radix: 16)
        return JSONParseError(offset: offset, reason: "lone surrogate \\u" + digits)
    }
}
