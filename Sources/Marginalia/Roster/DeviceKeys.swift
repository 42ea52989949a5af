/// The public keys a device is known by in a roster: Ed25519 to check what it signs, an age recipient to encrypt to
/// it. Its fingerprint is what two people compare when a device is admitted.
public struct DevicePublicKeys: Hashable, Sendable {
    /// The Ed25519 public key (32 bytes).
    package let signingKey: [UInt8]
    /// The age X25519 recipient.
    public let recipient: AgeRecipient

    package init(signingKey: [UInt8], recipient: AgeRecipient) {
        self.signingKey = signingKey
        self.recipient = recipient
    }

    /// The signing key as the roster writes it: unpadded base64.
    package var encodedSigningKey: String { AgeBase64.encode(signingKey) }

    /// A short fingerprint a person can read aloud and compare: 20 hex digits of the SHA-256 of both keys, in
    /// groups of four (`3f2a-91c0-77de-0b41-5a6e`), 80 bits.
    public var fingerprint: String {
        let digest = (try? SHA256Digest.hex(of: Array("marginalia device keys\n".utf8) + signingKey
            + recipient.publicKey)) ?? String(repeating: "0", count: 64)
        let digits = Array(digest.prefix(20))
        return stride(from: 0, to: 20, by: 4).map { String(digits[$0..<$0 + 4]) }.joined(separator: "-")
    }

    /// Whether `signature` is this device's signature of `message`.
    package func verifies(_ signature: [UInt8], of message: [UInt8]) -> Bool {
        (try? PlatformCrypto.ed25519Verify(publicKey: signingKey, message: message, signature: signature)) == true
    }
}

/// This device's own keys: the private halves of its `DevicePublicKeys`. Kept in the store (`device_keys`), never
/// in the log or an archive; `description` never shows a secret.
package struct DeviceKeys: CustomStringConvertible {
    /// The device id the keys speak for.
    package let device: String
    /// The Ed25519 private key (RFC 8032's 32-byte seed).
    let signingSeed: [UInt8]
    /// The age identity that opens what is encrypted to this device.
    package let identity: AgeIdentity
    package let publicKeys: DevicePublicKeys

    package init(device: String, signingSeed: [UInt8], ageSecret: [UInt8]) throws {
        self.device = device
        self.signingSeed = signingSeed
        identity = try AgeIdentity(secretKey: ageSecret)
        publicKeys = DevicePublicKeys(signingKey: try PlatformCrypto.ed25519PublicKey(seed: signingSeed),
                                      recipient: identity.recipient)
    }

    /// New keys for `device`, from the platform's secure generator.
    package static func generate(device: String) throws -> DeviceKeys {
        try DeviceKeys(device: device, signingSeed: PlatformCrypto.randomBytes(32),
                       ageSecret: PlatformCrypto.randomBytes(32))
    }

    /// This device's Ed25519 signature of `message` (64 bytes).
    package func sign(_ message: [UInt8]) throws -> [UInt8] {
        try PlatformCrypto.ed25519Sign(seed: signingSeed, message: message)
    }

    package var description: String { "DeviceKeys(\(device), \(publicKeys.fingerprint))" }
}
