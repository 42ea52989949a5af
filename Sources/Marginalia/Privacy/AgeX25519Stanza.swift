/// The X25519 recipient stanza: wrapping a file key to a recipient, and unwrapping it with an identity
/// (https://c2sp.org/age#the-x25519-recipient-type).
///
///     -> X25519 <base64 of the 32-byte ephemeral share>
///     <base64 of the file key sealed with ChaCha20-Poly1305>
enum AgeX25519Stanza {
    static let type = "X25519"
    private static let info = Array("age-encryption.org/v1/X25519".utf8)
    private static let zeroNonce = [UInt8](repeating: 0, count: 12)

    /// A stanza wrapping `fileKey` for `recipient`, with a fresh ephemeral secret.
    ///
    /// - Throws: `AgeError.invalidRecipient` for a small-order public key, or `PlatformCryptoError`.
    static func wrap(_ fileKey: [UInt8], to recipient: AgeRecipient) throws -> AgeStanza {
        let ephemeral = try PlatformCrypto.randomBytes(32)
        let share = try PlatformCrypto.x25519PublicKey(scalar: ephemeral)
        guard let secret = try PlatformCrypto.x25519(scalar: ephemeral, point: recipient.publicKey) else {
            throw AgeError.invalidRecipient(recipient.encoded, reason: "the key is a small-order point")
        }
        let key = try wrapKey(secret: secret, share: share, recipient: recipient.publicKey)
        let body = try PlatformCrypto.chachaPolySeal(key: key, nonce: zeroNonce, plaintext: fileKey)
        return AgeStanza(arguments: [type, AgeBase64.encode(share)], body: body)
    }

    /// The file key in `stanza` (an X25519 stanza) when one of `identities` unwraps it; nil when none does.
    ///
    /// - Throws: `AgeError.malformedHeader` when the stanza breaks the rules of its type: not two arguments, a
    ///   share that is not 32 bytes of canonical base64, a body that is not 32 bytes, a small-order share.
    static func unwrap(_ stanza: AgeStanza, with identities: [AgeIdentity]) throws -> [UInt8]? {
        guard stanza.arguments.count == 2 else { throw malformed(stanza, "an X25519 stanza has 2 arguments") }
        guard let share = AgeBase64.decode(stanza.arguments[1]), share.count == 32 else {
            throw malformed(stanza, "the X25519 share is not 32 bytes of canonical base64")
        }
        // The body's length is checked before decrypting, against partitioning oracle attacks, as the spec says.
        guard stanza.body.count == AgeFormat.fileKeySize + AgeFormat.tagSize else {
            throw malformed(stanza, "the X25519 stanza's body is not 32 bytes")
        }
        for identity in identities {
            guard let secret = try PlatformCrypto.x25519(scalar: identity.secretKey, point: share) else {
                throw malformed(stanza, "the X25519 share is a small-order point")
            }
            let key = try wrapKey(secret: secret, share: share, recipient: identity.recipient.publicKey)
            if let fileKey = try PlatformCrypto.chachaPolyOpen(key: key, nonce: zeroNonce, sealed: stanza.body) {
                return fileKey
            }
        }
        return nil
    }

    /// `HKDF-SHA-256(ikm = shared secret, salt = ephemeral share || recipient, info = "age-encryption.org/v1/X25519")`.
    private static func wrapKey(secret: [UInt8], share: [UInt8], recipient: [UInt8]) throws -> [UInt8] {
        try PlatformCrypto.hkdfSHA256(ikm: secret, salt: share + recipient, info: info, count: 32)
    }

    private static func malformed(_ stanza: AgeStanza, _ reason: String) -> AgeError {
        .malformedHeader(line: stanza.line, reason: reason)
    }
}
