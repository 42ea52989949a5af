/// The base64 of age's header: RFC 4648 section 4 without `=` padding, and only canonical encodings decode.
///
///     AgeBase64.encode([0xFF])        // "/w"
///     AgeBase64.decode("/w")          // [0xFF]
///     AgeBase64.decode("/x")          // nil: the unused bits are not zero (RFC 4648, section 3.5)
///     AgeBase64.decode("/w==")        // nil: padding
package enum AgeBase64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// `bytes` as unpadded base64.
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = second == nil ? nil : iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            let count = third != nil ? 4 : second != nil ? 3 : 2
            for index in 0..<count { output.append(alphabet[Int((group >> (18 - 6 * UInt32(index))) & 63)]) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of canonical unpadded base64; nil for anything else (padding, a character outside the alphabet, a
    /// length of 1 mod 4, non-zero unused bits).
    package static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        let characters = Array(text)
        guard characters.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(characters.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in characters {
            let value = values[Int(character)]
            guard value != 0xFF else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8((accumulator >> UInt32(bits)) & 0xFF))
            }
        }
        // The bits left over are the unused low bits of the last character: canonical encodings leave them zero.
        guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return output
    }

    /// `decode` of a string's UTF-8.
    package static func decode(_ text: String) -> [UInt8]? {
        decode(Array(text.utf8))
    }
}
