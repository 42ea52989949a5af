/// 64-bit FNV-1a: a cheap, stable fingerprint of bytes (a cache file name, a check that rows did not change),
/// not a security measure.
///
/// Starting from the 64-bit offset basis (0xcbf29ce484222325), each byte is XORed into the hash, which is then
/// multiplied by the 64-bit FNV prime (0x100000001b3), modulo 2^64.
/// http://www.isthe.com/chongo/tech/comp/fnv/index.html
package struct FNV1a {
    /// The hash of the bytes fed so far.
    package private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    /// A hash of nothing yet.
    package init() {}

    /// Feeds `bytes`, in order.
    package mutating func feed<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        for byte in bytes { feed(byte) }
    }

    /// Feeds one byte: what a loop over a buffer calls, with no generic sequence in between (which an unoptimized
    /// build, as the tests run, pays for at every byte).
    package mutating func feed(_ byte: UInt8) {
        value ^= UInt64(byte)
        value = value &* 0x100_0000_01b3
    }

    /// The hash in lowercase hexadecimal, without leading zeros.
    package var hex: String { String(value, radix: 16) }

    /// The hash of `bytes` in lowercase hexadecimal, without leading zeros.
    package static func hex<Bytes: Sequence>(of bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var hash = FNV1a()
        hash.feed(bytes)
        return hash.hex
    }
}
