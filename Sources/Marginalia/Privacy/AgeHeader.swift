/// An age header: its recipient stanzas and its MAC (https://c2sp.org/age#header).
package struct AgeHeader: Equatable, Sendable {
    /// The recipient stanzas, in order.
    package var stanzas: [AgeStanza]
    /// The 32-byte HMAC-SHA-256 from the `---` line.
    package var mac: [UInt8]
    /// The header bytes the MAC covers: from the version line up to and including `---`.
    package var macInput: [UInt8]

    /// The header text of `stanzas` for a file of `fileKey`, its MAC line included, and the MAC.
    ///
    /// - Throws: `PlatformCryptoError` when the cryptography library fails.
    package static func encode(stanzas: [AgeStanza], fileKey: [UInt8]) throws -> (bytes: [UInt8], mac: [UInt8]) {
        var output = AgeFormat.versionLine
        for stanza in stanzas { output += stanza.encoded }
        output += Array("---".utf8)
        let mac = try macOf(output, fileKey: fileKey)
        output += Array(" \(AgeBase64.encode(mac))\n".utf8)
        return (output, mac)
    }

    /// HMAC-SHA-256 of `macInput` under `HKDF-SHA-256(ikm = file key, salt = empty, info = "header")`.
    package static func macOf(_ macInput: [UInt8], fileKey: [UInt8]) throws -> [UInt8] {
        let key = try PlatformCrypto.hkdfSHA256(ikm: fileKey, salt: [], info: Array("header".utf8), count: 32)
        return try PlatformCrypto.hmacSHA256(key: key, message: macInput)
    }

    /// Whether the MAC matches this header for `fileKey`, compared in constant time.
    package func verifies(fileKey: [UInt8]) throws -> Bool {
        PlatformCrypto.constantTimeEqual(try Self.macOf(macInput, fileKey: fileKey), mac)
    }
}
