/// The payload's STREAM construction: 64 KiB chunks, each sealed with ChaCha20-Poly1305 under the payload key and a
/// nonce of an 11-byte big-endian counter and a last-chunk flag byte (https://c2sp.org/age#payload).
struct AgePayloadCipher {
    private let key: [UInt8]

    /// The cipher of the payload key `HKDF-SHA-256(ikm = file key, salt = nonce, info = "payload")`.
    ///
    /// - Throws: `PlatformCryptoError`.
    init(fileKey: [UInt8], nonce: [UInt8]) throws {
        key = try PlatformCrypto.hkdfSHA256(ikm: fileKey, salt: nonce, info: Array("payload".utf8), count: 32)
    }

    /// Chunk `index`'s plaintext, sealed.
    func seal(_ plaintext: [UInt8], index: UInt64, last: Bool) throws -> [UInt8] {
        try PlatformCrypto.chachaPolySeal(key: key, nonce: Self.nonce(index: index, last: last), plaintext: plaintext)
    }

    /// Chunk `index`'s plaintext; nil when `sealed` fails to authenticate as that chunk (with that flag).
    func open(_ sealed: [UInt8], index: UInt64, last: Bool) throws -> [UInt8]? {
        try PlatformCrypto.chachaPolyOpen(key: key, nonce: Self.nonce(index: index, last: last), sealed: sealed)
    }

    /// The 12-byte nonce of chunk `index`: three zero bytes and the index big-endian make the 11-byte counter.
    static func nonce(index: UInt64, last: Bool) -> [UInt8] {
        [0, 0, 0] + (0..<8).map { UInt8(truncatingIfNeeded: index >> (56 - 8 * UInt64($0))) } + [last ? 1 : 0]
    }
}
