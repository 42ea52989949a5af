/// Text made inert for HTML: markup characters escaped, and every control character, bidirectional override and
/// invisible format character shown as its code point (`<U+202E>`) instead of applied, so that a note cannot
/// reorder or hide the text around it.
///
///     HTMLText.escaped("<b>\u{202E}evil")   // "&lt;b&gt;&lt;U+202E&gt;evil"
public enum HTMLText {
    /// `text` escaped for an element's content or a quoted attribute value.
    public static func escaped(_ text: String) -> String {
        var out = [UInt8]()
        append(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `text` escaped to `out`, as UTF-8: byte by byte, decoding only the scalars outside ASCII to tell
    /// whether they are shown as code points (a report escapes every note of a store).
    static func append(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            // Plain ASCII without markup characters, most of a report, is copied as it is.
            if !bytes.contains(where: { $0 >= 0x7F || $0 < 0x20 || isMarkup($0) }) {
                out.append(contentsOf: bytes)
                return
            }
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte < 0x80 {
                    appendASCII(byte, to: &out)
                    index += 1
                    continue
                }
                // A String's UTF-8 is valid: the lead byte gives the length, the rest carry 6 bits each.
                let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
                var value = UInt32(byte) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
                for next in 1..<length { value = value << 6 | UInt32(bytes[index + next] & 0x3F) }
                if let scalar = Unicode.Scalar(value), isHidden(scalar) {
                    appendCodePoint(value, to: &out)
                } else {
                    out.append(contentsOf: bytes[index..<index + length])
                }
                index += length
            }
        }
    }

    private static func isMarkup(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
            || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
    }

    private static func appendASCII(_ byte: UInt8, to out: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
        case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
        case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
        case UInt8(ascii: "\""): out.append(contentsOf: "&quot;".utf8)
        case UInt8(ascii: "'"): out.append(contentsOf: "&#39;".utf8)
        case 0x0A, 0x09: out.append(byte)
        case 0..<0x20, 0x7F: appendCodePoint(UInt32(byte), to: &out)
        default: out.append(byte)
        }
    }

    /// `&lt;U+202E&gt;`: at least four hexadecimal digits, as Unicode writes code points.
    private static func appendCodePoint(_ value: UInt32, to out: inout [UInt8]) {
        var hex = String(value, radix: 16, uppercase: true)
        while hex.count < 4 { hex = "0" + hex }
        out.append(contentsOf: "&lt;U+\(hex)&gt;".utf8)
    }

    /// Whether a scalar is shown as its code point: C0 controls but line feed and tab, DEL and C1 controls, the
    /// bidirectional marks, embeddings, overrides and isolates, zero-width and line-separating characters, and
    /// the byte order mark.
    public static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: return false
        case 0...0x1F, 0x7F...0x9F: return true
        case 0x061C, 0x200B...0x200F, 0x2028...0x202E, 0x2060...0x2064, 0x2066...0x2069, 0xFEFF: return true
        default: return false
        }
    }
}
