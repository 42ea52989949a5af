/// An age X25519 identity: the secret key that decrypts files encrypted to its recipient, written
/// `AGE-SECRET-KEY-1…`.
///
///     let identity = try AgeIdentity.generate()
///     let file = try AgeEncryptingSink.encrypt(bytes, to: .recipients([identity.recipient]))
///
/// Its `description` shows the recipient only, so that printing an identity never shows the secret key.
public struct AgeIdentity: Sendable, CustomStringConvertible {
    /// The 32-byte X25519 secret scalar.
    package let secretKey: [UInt8]
    /// The recipient of this identity.
    public let recipient: AgeRecipient

    /// The identity of a 32-byte X25519 secret scalar.
    ///
    /// - Throws: `PlatformCryptoError` when the cryptography library fails.
    package init(secretKey: [UInt8]) throws {
        precondition(secretKey.count == 32, "an X25519 secret key is 32 bytes")
        self.secretKey = secretKey
        recipient = AgeRecipient(publicKey: try PlatformCrypto.x25519PublicKey(scalar: secretKey))
    }

    /// A new identity from 32 random bytes.
    ///
    /// - Throws: `MarginaliaError` (`.io`) when the cryptography library fails.
    public static func generate() throws -> AgeIdentity {
        try MarginaliaError.classifying { try AgeIdentity(secretKey: PlatformCrypto.randomBytes(32)) }
    }

    /// The identity written in `text`: one `AGE-SECRET-KEY-1…` key, uppercase as age writes it (lowercase is
    /// accepted too, as by age).
    ///
    /// - Throws: `MarginaliaError` (`.invalidArgument`) saying what is wrong: the prefix, a character, the
    ///   checksum, the length.
    public init(parsing text: String) throws {
        self = try MarginaliaError.classifying { try AgeIdentity(text: text) }
    }

    /// The identity written in `text`; throws `AgeError.invalidIdentity`.
    package init(text: String) throws {
        let decoded: (hrp: String, data: [UInt8])
        do {
            decoded = try Bech32.decode(text)
        } catch {
            throw AgeError.invalidIdentity(reason: AgeKeyText.reason(error))
        }
        guard decoded.hrp == "age-secret-key-" else {
            throw AgeError.invalidIdentity(reason: "the prefix is not \"AGE-SECRET-KEY-1\"")
        }
        guard decoded.data.count == 32 else {
            throw AgeError.invalidIdentity(reason: "the key is \(decoded.data.count) bytes, not 32")
        }
        try self.init(secretKey: decoded.data)
    }

    /// The identity as age writes it: `AGE-SECRET-KEY-1…` in uppercase.
    public var encoded: String { Bech32.encode(hrp: "age-secret-key-", data: secretKey, uppercase: true) }

    /// The identity named by its recipient; never the secret key.
    public var description: String { "AgeIdentity(\(recipient.encoded))" }
}
