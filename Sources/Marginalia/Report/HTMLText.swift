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

    /// Appends `text` escaped to `out`, as UTF-8.
    static func append(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            // Plain ASCII without markup characters, most of a report, is copied as it is.
            if !bytes.contains(where: { $0 >= 0x7F || $0 < 0x20 || isMarkup($0) }) {
                out.append(contentsOf: bytes)
                return
            }
            for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
                appendScalar(scalar, to: &out)
            }
        }
    }

    private static func isMarkup(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
            || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
    }

    private static func appendScalar(_ scalar: Unicode.Scalar, to out: inout [UInt8]) {
        switch scalar {
        case "&": out.append(contentsOf: "&amp;".utf8)
        case "<": out.append(contentsOf: "&lt;".utf8)
        case ">": out.append(contentsOf: "&gt;".utf8)
        case "\"": out.append(contentsOf: "&quot;".utf8)
        case "'": out.append(contentsOf: "&#39;".utf8)
        default:
            if isHidden(scalar) {
                var hex = String(scalar.value, radix: 16, uppercase: true)
                while hex.count < 4 { hex = "0" + hex }
                out.append(contentsOf: "&lt;U+\(hex)&gt;".utf8)
            } else {
                out.append(contentsOf: String(scalar).utf8)
            }
        }
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
