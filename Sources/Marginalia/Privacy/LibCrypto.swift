#if !canImport(CryptoKit)
internal import CCrypto

/// `PlatformCrypto` on Linux: the calls into libcrypto (OpenSSL 3.0), each return code checked.
enum LibCrypto {
    // MARK: - X25519

    static func x25519(scalar: [UInt8], point: [UInt8]) throws -> [UInt8]? {
        let key = try privateKey(scalar)
        defer { EVP_PKEY_free(key) }
        guard let peer = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nil, point, point.count) else {
            throw PlatformCryptoError(function: "EVP_PKEY_new_raw_public_key")
        }
        defer { EVP_PKEY_free(peer) }
        guard let context = EVP_PKEY_CTX_new(key, nil) else { throw PlatformCryptoError(function: "EVP_PKEY_CTX_new") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_derive_init(context) == 1 else { throw PlatformCryptoError(function: "EVP_PKEY_derive_init") }
        guard EVP_PKEY_derive_set_peer(context, peer) == 1 else {
            throw PlatformCryptoError(function: "EVP_PKEY_derive_set_peer")
        }
        var secret = [UInt8](repeating: 0, count: 32)
        var length = secret.count
        // OpenSSL's X25519 derivation fails when the shared secret is all zero bytes (a small-order peer point), as
        // RFC 7748 section 6.1 allows: "implementations MAY check whether the output is all zero and abort".
        // https://www.rfc-editor.org/rfc/rfc7748#section-6.1
        guard EVP_PKEY_derive(context, &secret, &length) == 1, length == 32 else { return nil }
        return secret.allSatisfy { $0 == 0 } ? nil : secret
    }

    static func x25519PublicKey(scalar: [UInt8]) throws -> [UInt8] {
        let key = try privateKey(scalar)
        defer { EVP_PKEY_free(key) }
        return try rawPublicKey(of: key)
    }

    /// The 32-byte public key of an X25519 or Ed25519 key.
    private static func rawPublicKey(of key: OpaquePointer) throws -> [UInt8] {
        var point = [UInt8](repeating: 0, count: 32)
        var length = point.count
        guard EVP_PKEY_get_raw_public_key(key, &point, &length) == 1, length == 32 else {
            throw PlatformCryptoError(function: "EVP_PKEY_get_raw_public_key")
        }
        return point
    }

    /// "EVP_PKEY_new_raw_private_key() allocates a new EVP_PKEY … for X25519 … this is the raw private key" (any 32
    /// bytes: clamping is X25519's own). https://www.openssl.org/docs/man3.0/man3/EVP_PKEY_new_raw_private_key.html
    private static func privateKey(_ scalar: [UInt8]) throws -> OpaquePointer {
        guard let key = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nil, scalar, scalar.count) else {
            throw PlatformCryptoError(function: "EVP_PKEY_new_raw_private_key")
        }
        return key
    }

    // MARK: - Ed25519

    /// The Ed25519 public key of a 32-byte private key (RFC 8032's seed).
    static func ed25519PublicKey(seed: [UInt8]) throws -> [UInt8] {
        let key = try ed25519Key(seed)
        defer { EVP_PKEY_free(key) }
        return try rawPublicKey(of: key)
    }

    /// "Ed25519 … can be used with EVP_DigestSign() and EVP_DigestVerify(): the digest type must be NULL" (one-shot,
    /// PureEdDSA over the whole message). https://www.openssl.org/docs/man3.0/man7/EVP_SIGNATURE-ED25519.html
    static func ed25519Sign(seed: [UInt8], message: [UInt8]) throws -> [UInt8] {
        let key = try ed25519Key(seed)
        defer { EVP_PKEY_free(key) }
        guard let context = EVP_MD_CTX_new() else { throw PlatformCryptoError(function: "EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, nil, nil, key) == 1 else {
            throw PlatformCryptoError(function: "EVP_DigestSignInit")
        }
        var signature = [UInt8](repeating: 0, count: 64)
        var length = signature.count
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1, length == 64 else {
            throw PlatformCryptoError(function: "EVP_DigestSign")
        }
        return signature
    }

    /// Whether `signature` is `publicKey`'s Ed25519 signature of `message`; false for a key that is not a point.
    static func ed25519Verify(publicKey: [UInt8], message: [UInt8], signature: [UInt8]) throws -> Bool {
        guard let key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, publicKey, publicKey.count) else {
            return false
        }
        defer { EVP_PKEY_free(key) }
        guard let context = EVP_MD_CTX_new() else { throw PlatformCryptoError(function: "EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1 else {
            throw PlatformCryptoError(function: "EVP_DigestVerifyInit")
        }
        // "EVP_DigestVerify() … return 1 for success; any other value indicates failure" (0: a bad signature).
        // https://www.openssl.org/docs/man3.0/man3/EVP_DigestVerify.html
        return EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }

    private static func ed25519Key(_ seed: [UInt8]) throws -> OpaquePointer {
        guard let key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, seed, seed.count) else {
            throw PlatformCryptoError(function: "EVP_PKEY_new_raw_private_key")
        }
        return key
    }

    // MARK: - HKDF and HMAC

    static func hkdfSHA256(ikm: [UInt8], salt: [UInt8], info: [UInt8], count: Int) throws -> [UInt8] {
        // https://www.openssl.org/docs/man3.0/man3/EVP_PKEY_CTX_set_hkdf_md.html: the default mode is extract then
        // expand; "If the salt is not specified, … the salt is assumed to be a string of HashLen zeroes", which is
        // also what HMAC makes of an empty salt (RFC 5869, section 2.2).
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nil) else {
            throw PlatformCryptoError(function: "EVP_PKEY_CTX_new_id")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_derive_init(context) == 1 else { throw PlatformCryptoError(function: "EVP_PKEY_derive_init") }
        guard EVP_PKEY_CTX_set_hkdf_md(context, EVP_sha256()) == 1 else {
            throw PlatformCryptoError(function: "EVP_PKEY_CTX_set_hkdf_md")
        }
        guard EVP_PKEY_CTX_set1_hkdf_key(context, ikm, Int32(ikm.count)) == 1 else {
            throw PlatformCryptoError(function: "EVP_PKEY_CTX_set1_hkdf_key")
        }
        if !salt.isEmpty, EVP_PKEY_CTX_set1_hkdf_salt(context, salt, Int32(salt.count)) != 1 {
            throw PlatformCryptoError(function: "EVP_PKEY_CTX_set1_hkdf_salt")
        }
        if !info.isEmpty, EVP_PKEY_CTX_add1_hkdf_info(context, info, Int32(info.count)) != 1 {
            throw PlatformCryptoError(function: "EVP_PKEY_CTX_add1_hkdf_info")
        }
        var output = [UInt8](repeating: 0, count: count)
        var length = count
        guard EVP_PKEY_derive(context, &output, &length) == 1, length == count else {
            throw PlatformCryptoError(function: "EVP_PKEY_derive")
        }
        return output
    }

    static func hmacSHA256(key: [UInt8], message: [UInt8]) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        // "HMAC() … returns a pointer to the authentication code or NULL if an error occurred."
        // https://www.openssl.org/docs/man3.0/man3/HMAC.html
        guard HMAC(EVP_sha256(), key, Int32(key.count), message, message.count, &output, &length) != nil,
              length == 32 else { throw PlatformCryptoError(function: "HMAC") }
        return output
    }

    // MARK: - ChaCha20-Poly1305

    static func chachaPolySeal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8]) throws -> [UInt8] {
        let context = try cipherContext()
        defer { EVP_CIPHER_CTX_free(context) }
        // The default IV length of EVP_chacha20_poly1305 is 12 bytes, and its tag 16.
        // https://www.openssl.org/docs/man3.0/man3/EVP_chacha20_poly1305.html
        guard EVP_EncryptInit_ex(context, EVP_chacha20_poly1305(), nil, key, nonce) == 1 else {
            throw PlatformCryptoError(function: "EVP_EncryptInit_ex")
        }
        var output = [UInt8](repeating: 0, count: plaintext.count + 16)
        var length: Int32 = 0
        if !plaintext.isEmpty {
            guard EVP_EncryptUpdate(context, &output, &length, plaintext, Int32(plaintext.count)) == 1,
                  Int(length) == plaintext.count else { throw PlatformCryptoError(function: "EVP_EncryptUpdate") }
        }
        var tail: Int32 = 0
        let finished = output.withUnsafeMutableBufferPointer { buffer in
            EVP_EncryptFinal_ex(context, buffer.baseAddress! + plaintext.count, &tail) == 1
                && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, 16, buffer.baseAddress! + plaintext.count) == 1
        }
        guard finished, tail == 0 else { throw PlatformCryptoError(function: "EVP_EncryptFinal_ex") }
        return output
    }

    static func chachaPolyOpen(key: [UInt8], nonce: [UInt8], sealed: [UInt8]) throws -> [UInt8]? {
        let context = try cipherContext()
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_DecryptInit_ex(context, EVP_chacha20_poly1305(), nil, key, nonce) == 1 else {
            throw PlatformCryptoError(function: "EVP_DecryptInit_ex")
        }
        let count = sealed.count - 16
        var output = [UInt8](repeating: 0, count: count)
        var length: Int32 = 0
        if count > 0 {
            guard EVP_DecryptUpdate(context, &output, &length, sealed, Int32(count)) == 1, Int(length) == count else {
                throw PlatformCryptoError(function: "EVP_DecryptUpdate")
            }
        }
        var tag = Array(sealed.suffix(16))
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, 16, &tag) == 1 else {
            throw PlatformCryptoError(function: "EVP_CIPHER_CTX_ctrl")
        }
        // "EVP_DecryptFinal_ex() … returns 0 if the decrypt failed or 1 for success"; for an AEAD cipher a failure
        // is a tag that does not verify. https://www.openssl.org/docs/man3.0/man3/EVP_DecryptFinal_ex.html
        var tail: Int32 = 0
        var scratch = [UInt8](repeating: 0, count: 16)
        guard EVP_DecryptFinal_ex(context, &scratch, &tail) == 1 else { return nil }
        return output
    }

    private static func cipherContext() throws -> OpaquePointer {
        guard let context = EVP_CIPHER_CTX_new() else { throw PlatformCryptoError(function: "EVP_CIPHER_CTX_new") }
        return context
    }

    // MARK: - scrypt, random bytes, comparison

    static func scrypt(password: [UInt8], salt: [UInt8], logN: Int, count: Int) throws -> [UInt8] {
        let n = UInt64(1) << UInt64(logN)
        // scrypt needs 128·r·N bytes for V plus 256·r·p for B (RFC 7914, section 5); EVP_PBE_scrypt refuses to use
        // more than `maxmem` bytes. https://www.openssl.org/docs/man3.0/man3/EVP_PBE_scrypt.html
        let maxMemory = 128 * 8 * n + 256 * 8 + 1024 * 1024
        var output = [UInt8](repeating: 0, count: count)
        let ok = password.withUnsafeBytes { pass in
            EVP_PBE_scrypt(pass.baseAddress?.assumingMemoryBound(to: CChar.self), pass.count, salt, salt.count,
                           n, 8, 1, maxMemory, &output, count)
        }
        guard ok == 1 else { throw PlatformCryptoError(function: "EVP_PBE_scrypt") }
        return output
    }

    static func randomBytes(_ count: Int) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        // "RAND_bytes() … return 1 on success, -1 if not supported by the current RAND method, or 0 on other
        // failure." https://www.openssl.org/docs/man3.0/man3/RAND_bytes.html
        guard count == 0 || RAND_bytes(&output, Int32(count)) == 1 else {
            throw PlatformCryptoError(function: "RAND_bytes")
        }
        return output
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        // "CRYPTO_memcmp … The time taken is independent of the contents of the two memory blocks compared."
        // https://www.openssl.org/docs/man3.0/man3/CRYPTO_memcmp.html
        a.isEmpty || CRYPTO_memcmp(a, b, a.count) == 0
    }
}
#endif
