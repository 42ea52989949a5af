/// The scrypt recipient stanza: wrapping a file key with a passphrase, and unwrapping it
/// (https://c2sp.org/age#the-scrypt-recipient-type).
///
///     -> scrypt <base64 of the 16-byte salt> <log2 of the work factor>
///     <base64 of the file key sealed with ChaCha20-Poly1305>
enum AgeScryptStanza {
    static let type = "scrypt"
    private static let label = Array("age-encryption.org/v1/scrypt".utf8)
    private static let zeroNonce = [UInt8](repeating: 0, count: 12)

    /// A stanza wrapping `fileKey` with `passphrase` at work factor 2^`workFactor`, with a fresh salt.
    ///
    /// - Throws: `AgeError.unsupportedOnThisPlatform` where the platform has no scrypt, or `PlatformCryptoError`.
    static func wrap(_ fileKey: [UInt8], passphrase: String, workFactor: Int) throws -> AgeStanza {
        let salt = try PlatformCrypto.randomBytes(16)
        let key = try wrapKey(passphrase: passphrase, salt: salt, workFactor: workFactor)
        let body = try PlatformCrypto.chachaPolySeal(key: key, nonce: zeroNonce, plaintext: fileKey)
        return AgeStanza(arguments: [type, AgeBase64.encode(salt), String(workFactor)], body: body)
    }

    /// The file key in `stanza` (an scrypt stanza), unwrapped with `passphrase`.
    ///
    /// - Throws: `AgeError.malformedHeader` when the stanza breaks the rules of its type (not three arguments, a salt
    ///   that is not 16 bytes of canonical base64, a work factor that is not a decimal without leading zeros, a body
    ///   that is not 32 bytes), `.workFactorTooHigh`, `.wrongPassphrase`, `.unsupportedOnThisPlatform`.
    static func unwrap(_ stanza: AgeStanza, passphrase: String) throws -> [UInt8] {
        guard stanza.arguments.count == 3 else { throw malformed(stanza, "an scrypt stanza has 3 arguments") }
        guard let salt = AgeBase64.decode(stanza.arguments[1]), salt.count == 16 else {
            throw malformed(stanza, "the scrypt salt is not 16 bytes of canonical base64")
        }
        let digits = Array(stanza.arguments[2].utf8)
        guard let first = digits.first, first != UInt8(ascii: "0"),
              digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            throw malformed(stanza, "the scrypt work factor is not a decimal number without leading zeros")
        }
        guard let workFactor = Int(stanza.arguments[2]) else {
            throw malformed(stanza, "the scrypt work factor \(stanza.arguments[2]) is out of range")
        }
        guard workFactor <= AgeFormat.maxScryptWorkFactor else {
            throw AgeError.workFactorTooHigh(logN: workFactor, limit: AgeFormat.maxScryptWorkFactor)
        }
        // The body's length is checked before decrypting, against partitioning oracle attacks, as the spec says.
        guard stanza.body.count == AgeFormat.fileKeySize + AgeFormat.tagSize else {
            throw malformed(stanza, "the scrypt stanza's body is not 32 bytes")
        }
        let key = try wrapKey(passphrase: passphrase, salt: salt, workFactor: workFactor)
        guard let fileKey = try PlatformCrypto.chachaPolyOpen(key: key, nonce: zeroNonce, sealed: stanza.body) else {
            throw AgeError.wrongPassphrase
        }
        return fileKey
    }

    /// The wrap key: `scrypt(N = 2^workFactor, r = 8, p = 1, dkLen = 32, S = "age-encryption.org/v1/scrypt" || salt,
    /// P = passphrase)`.
    private static func wrapKey(passphrase: String, salt: [UInt8], workFactor: Int) throws -> [UInt8] {
        guard let key = try PlatformCrypto.scrypt(password: Array(passphrase.utf8), salt: label + salt,
                                                  logN: workFactor, count: 32) else {
            throw AgeError.unsupportedOnThisPlatform(feature: "passphrase encryption (scrypt)")
        }
        return key
    }

    private static func malformed(_ stanza: AgeStanza, _ reason: String) -> AgeError {
        .malformedHeader(line: stanza.line, reason: reason)
    }
}
