/// Bech32 (BIP-173, not Bech32m) as age uses it: no length limit, all lowercase or all uppercase, the checksum over
/// the lowercase form. https://github.com/bitcoin/bips/blob/master/bip-0173.mediawiki
///
///     Bech32.encode(hrp: "age", data: publicKey)     // "age1…"
///     try Bech32.decode("age1…")                     // ("age", publicKey)
package enum Bech32 {
    /// Why a string is not Bech32.
    package enum Failure: Error, Equatable, Sendable {
        /// The string has both lowercase and uppercase letters.
        case mixedCase
        /// There is no `1` separating the prefix from the data, or nothing before it.
        case noSeparator
        /// A character outside the Bech32 alphabet (or outside printable ASCII in the prefix).
        case invalidCharacter(Character)
        /// Fewer than the six characters of the checksum after the separator.
        case tooShort
        /// The checksum does not match: a character was mistyped or lost.
        case badChecksum
        /// The data's 5-bit groups do not make whole bytes (non-zero or too many padding bits).
        case badPadding
    }

    private static let alphabet = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)
    private static let generator: [UInt32] = [0x3b6a_57b2, 0x2650_8e6d, 0x1ea1_19fa, 0x3d42_33dd, 0x2a14_62b3]

    /// `data` under the human-readable prefix `hrp`, in lowercase (uppercase if `uppercase`).
    package static func encode(hrp: String, data: [UInt8], uppercase: Bool = false) -> String {
        let prefix = Array(hrp.lowercased().utf8)
        let values = regroup(data, from: 8, to: 5, pad: true) ?? []
        let checksum = polymod(expand(prefix) + values + [0, 0, 0, 0, 0, 0]) ^ 1
        let sums = (0..<6).map { UInt8((checksum >> (5 * (5 - UInt32($0)))) & 31) }
        let text = String(decoding: prefix + [UInt8(ascii: "1")] + (values + sums).map { alphabet[Int($0)] },
                          as: UTF8.self)
        return uppercase ? text.uppercased() : text
    }

    /// The lowercase prefix and the bytes of a Bech32 string.
    ///
    /// - Throws: `Failure` saying what is wrong.
    package static func decode(_ text: String) throws(Failure) -> (hrp: String, data: [UInt8]) {
        let bytes = Array(text.utf8)
        for byte in bytes where byte < 33 || byte > 126 { throw .invalidCharacter(Character(Unicode.Scalar(byte))) }
        let hasLower = bytes.contains { (97...122).contains($0) }
        let hasUpper = bytes.contains { (65...90).contains($0) }
        guard !(hasLower && hasUpper) else { throw .mixedCase }
        let lower = bytes.map { (65...90).contains($0) ? $0 + 32 : $0 }
        guard let separator = lower.lastIndex(of: UInt8(ascii: "1")), separator > 0 else { throw .noSeparator }
        let prefix = Array(lower[..<separator])
        var values: [UInt8] = []
        for byte in lower[(separator + 1)...] {
            guard let value = alphabet.firstIndex(of: byte) else {
                throw .invalidCharacter(Character(Unicode.Scalar(byte)))
            }
            values.append(UInt8(value))
        }
        guard values.count >= 6 else { throw .tooShort }
        guard polymod(expand(prefix) + values) == 1 else { throw .badChecksum }
        guard let data = regroup(Array(values.dropLast(6)), from: 5, to: 8, pad: false) else { throw .badPadding }
        return (String(decoding: prefix, as: UTF8.self), data)
    }

    private static func polymod(_ values: [UInt8]) -> UInt32 {
        var checksum: UInt32 = 1
        for value in values {
            let top = checksum >> 25
            checksum = (checksum & 0x1ff_ffff) << 5 ^ UInt32(value)
            for bit in 0..<5 where (top >> UInt32(bit)) & 1 == 1 { checksum ^= generator[bit] }
        }
        return checksum
    }

    private static func expand(_ prefix: [UInt8]) -> [UInt8] {
        prefix.map { $0 >> 5 } + [0] + prefix.map { $0 & 31 }
    }

    /// `values` of `from` bits each as values of `to` bits; nil when the leftover bits are not valid padding.
    private static func regroup(_ values: [UInt8], from: Int, to: Int, pad: Bool) -> [UInt8]? {
        var accumulator = 0
        var bits = 0
        var output: [UInt8] = []
        let mask = (1 << to) - 1
        for value in values {
            accumulator = ((accumulator << from) | Int(value)) & 0xFFFF
            bits += from
            while bits >= to {
                bits -= to
                output.append(UInt8((accumulator >> bits) & mask))
            }
        }
        if pad {
            if bits > 0 { output.append(UInt8((accumulator << (to - bits)) & mask)) }
        } else if bits >= from || (accumulator << (to - bits)) & mask != 0 {
            return nil
        }
        return output
    }
}
