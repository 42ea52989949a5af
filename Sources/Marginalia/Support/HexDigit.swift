/// One hexadecimal digit as ASCII bytes hold it: what ids, digests and JSON's `\u` escapes are read with.
enum HexDigit {
    /// The digit's value, 0–15: `0`–`9`, `a`–`f`, and `A`–`F` when `uppercase` allows them; nil for any other
    /// byte.
    @inline(__always)
    static func value(of byte: UInt8, uppercase: Bool = false) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F") where uppercase: byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
