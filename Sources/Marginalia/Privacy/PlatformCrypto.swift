#if canImport(CryptoKit)
import CryptoKit
#endif

/// The cryptographic primitives age needs (and the sync folder's authentication will), from the platform's library:
/// libcrypto (OpenSSL 3) on Linux, CryptoKit on Apple's systems. Nothing here is written by hand.
///
///     let key = try PlatformCrypto.hkdfSHA256(ikm: fileKey, salt: [], info: Array("header".utf8), count: 32)
///     let mac = try PlatformCrypto.hmacSHA256(key: key, message: header)
///
/// Every function throws `PlatformCryptoError` when the library fails for a reason other than its input.
package enum PlatformCrypto {
    /// X25519 (RFC 7748) of a 32-byte `scalar` and a 32-byte `point`; nil when the result would be all zero bytes
    /// (a small-order point), which age refuses.
    package static func x25519(scalar: [UInt8], point: [UInt8]) throws -> [UInt8]? {
        precondition(scalar.count == 32 && point.count == 32, "X25519 takes 32-byte scalars and points")
        #if canImport(CryptoKit)
        guard let secret = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: scalar)
            .sharedSecretFromKeyAgreement(with: .init(rawRepresentation: point)) else { return nil }
        let bytes = secret.withUnsafeBytes { Array($0) }
        return bytes.allSatisfy { $0 == 0 } ? nil : bytes
        #else
        return try LibCrypto.x25519(scalar: scalar, point: point)
        #endif
    }

    /// The X25519 public key of a 32-byte `scalar`: X25519 of it and the base point.
    package static func x25519PublicKey(scalar: [UInt8]) throws -> [UInt8] {
        precondition(scalar.count == 32, "X25519 takes 32-byte scalars")
        #if canImport(CryptoKit)
        do {
            return Array(try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: scalar).publicKey.rawRepresentation)
        } catch {
            throw PlatformCryptoError(function: "Curve25519.KeyAgreement.PrivateKey")
        }
        #else
        return try LibCrypto.x25519PublicKey(scalar: scalar)
        #endif
    }

    /// The Ed25519 public key (RFC 8032) of a 32-byte private key.
    package static func ed25519PublicKey(seed: [UInt8]) throws -> [UInt8] {
        precondition(seed.count == 32, "Ed25519 takes 32-byte private keys")
        #if canImport(CryptoKit)
        do {
            return Array(try Curve25519.Signing.PrivateKey(rawRepresentation: seed).publicKey.rawRepresentation)
        } catch {
            throw PlatformCryptoError(function: "Curve25519.Signing.PrivateKey")
        }
        #else
        return try LibCrypto.ed25519PublicKey(seed: seed)
        #endif
    }

    /// The Ed25519 signature (RFC 8032, PureEdDSA: 64 bytes) of `message` under a 32-byte private key.
    package static func ed25519Sign(seed: [UInt8], message: [UInt8]) throws -> [UInt8] {
        precondition(seed.count == 32, "Ed25519 takes 32-byte private keys")
        #if canImport(CryptoKit)
        do {
            return Array(try Curve25519.Signing.PrivateKey(rawRepresentation: seed).signature(for: message))
        } catch {
            throw PlatformCryptoError(function: "Curve25519.Signing.PrivateKey.signature")
        }
        #else
        return try LibCrypto.ed25519Sign(seed: seed, message: message)
        #endif
    }

    /// Whether `signature` is the Ed25519 signature of `message` by the 32-byte `publicKey`; false for any key or
    /// signature of the wrong length or form.
    package static func ed25519Verify(publicKey: [UInt8], message: [UInt8], signature: [UInt8]) throws -> Bool {
        guard publicKey.count == 32, signature.count == 64 else { return false }
        #if canImport(CryptoKit)
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
        return key.isValidSignature(signature, for: message)
        #else
        return try LibCrypto.ed25519Verify(publicKey: publicKey, message: message, signature: signature)
        #endif
    }

    /// HKDF-SHA-256 (RFC 5869): Extract with `salt` (empty: HashLen zero bytes), then Expand with `info` to `count`
    /// bytes.
    package static func hkdfSHA256(ikm: [UInt8], salt: [UInt8], info: [UInt8], count: Int) throws -> [UInt8] {
        #if canImport(CryptoKit)
        let key = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: ikm), salt: salt, info: info,
                                         outputByteCount: count)
        return key.withUnsafeBytes { Array($0) }
        #else
        return try LibCrypto.hkdfSHA256(ikm: ikm, salt: salt, info: info, count: count)
        #endif
    }

    /// HMAC-SHA-256 (RFC 2104) of `message` under `key`: 32 bytes.
    package static func hmacSHA256(key: [UInt8], message: [UInt8]) throws -> [UInt8] {
        #if canImport(CryptoKit)
        return Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
        #else
        return try LibCrypto.hmacSHA256(key: key, message: message)
        #endif
    }

    /// ChaCha20-Poly1305 (RFC 7539) encryption with no associated data: the ciphertext followed by the 16-byte tag.
    package static func chachaPolySeal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8]) throws -> [UInt8] {
        precondition(key.count == 32 && nonce.count == 12, "ChaCha20-Poly1305 takes a 32-byte key and 12-byte nonce")
        #if canImport(CryptoKit)
        do {
            let box = try ChaChaPoly.seal(plaintext, using: SymmetricKey(data: key), nonce: .init(data: nonce))
            return Array(box.ciphertext) + Array(box.tag)
        } catch {
            throw PlatformCryptoError(function: "ChaChaPoly.seal")
        }
        #else
        return try LibCrypto.chachaPolySeal(key: key, nonce: nonce, plaintext: plaintext)
        #endif
    }

    /// ChaCha20-Poly1305 decryption of a ciphertext followed by its 16-byte tag; nil when it fails to authenticate
    /// (or is shorter than a tag).
    package static func chachaPolyOpen(key: [UInt8], nonce: [UInt8], sealed: [UInt8]) throws -> [UInt8]? {
        precondition(key.count == 32 && nonce.count == 12, "ChaCha20-Poly1305 takes a 32-byte key and 12-byte nonce")
        guard sealed.count >= 16 else { return nil }
        #if canImport(CryptoKit)
        guard let box = try? ChaChaPoly.SealedBox(nonce: .init(data: nonce), ciphertext: sealed.dropLast(16),
                                                  tag: sealed.suffix(16)) else { return nil }
        return (try? ChaChaPoly.open(box, using: SymmetricKey(data: key))).map { Array($0) }
        #else
        return try LibCrypto.chachaPolyOpen(key: key, nonce: nonce, sealed: sealed)
        #endif
    }

    /// Whether the platform offers scrypt: libcrypto does, CryptoKit does not.
    package static var hasScrypt: Bool {
        #if canImport(CryptoKit)
        return false
        #else
        return true
        #endif
    }

    /// scrypt (RFC 7914) of `password` and `salt` with N = 2^`logN`, r = 8, p = 1, to `count` bytes; nil where the
    /// platform has no scrypt (`hasScrypt`).
    package static func scrypt(password: [UInt8], salt: [UInt8], logN: Int, count: Int) throws -> [UInt8]? {
        #if canImport(CryptoKit)
        return nil
        #else
        return try LibCrypto.scrypt(password: password, salt: salt, logN: logN, count: count)
        #endif
    }

    /// `count` bytes from the platform's cryptographically secure generator.
    package static func randomBytes(_ count: Int) throws -> [UInt8] {
        #if canImport(CryptoKit)
        // "SystemRandomNumberGenerator … is automatically seeded, is safe to use in multiple threads, and uses a
        // cryptographically secure algorithm whenever possible." On Apple platforms it uses arc4random_buf(3).
        // https://developer.apple.com/documentation/swift/systemrandomnumbergenerator
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        #else
        return try LibCrypto.randomBytes(count)
        #endif
    }

    /// Whether `a` and `b` are equal, in a time that depends only on their lengths.
    package static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        #if canImport(CryptoKit)
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
        #else
        return LibCrypto.constantTimeEqual(a, b)
        #endif
    }
}
