/// Making a file key and its stanzas, and finding it again in a header.
enum AgeFileKey {
    /// A fresh file key and the stanzas that wrap it for `key`.
    ///
    /// - Parameter scryptWorkFactor: log2 of scrypt's N for a passphrase.
    /// - Throws: `AgeError.noRecipients`, `.unsupportedOnThisPlatform`, `.invalidRecipient`, or `PlatformCryptoError`.
    static func make(for key: AgeKey, scryptWorkFactor: Int) throws -> (fileKey: [UInt8], stanzas: [AgeStanza]) {
        let fileKey = try PlatformCrypto.randomBytes(AgeFormat.fileKeySize)
        switch key {
        case .recipients(let recipients):
            guard !recipients.isEmpty else { throw AgeError.noRecipients }
            return (fileKey, try recipients.map { try AgeX25519Stanza.wrap(fileKey, to: $0) })
        case .identities(let identities):
            guard !identities.isEmpty else { throw AgeError.noRecipients }
            return (fileKey, try identities.map { try AgeX25519Stanza.wrap(fileKey, to: $0.recipient) })
        case .passphrase(let passphrase):
            guard PlatformCrypto.hasScrypt else {
                throw AgeError.unsupportedOnThisPlatform(feature: "passphrase encryption (scrypt)")
            }
            return (fileKey, [try AgeScryptStanza.wrap(fileKey, passphrase: passphrase, workFactor: scryptWorkFactor)])
        }
    }

    /// The file key `header`'s stanzas wrap, unwrapped with `key`; the header's MAC is not checked here.
    ///
    /// - Throws: `AgeError`: a malformed stanza, no identity matching, not passphrase-encrypted, a wrong passphrase.
    static func unwrap(_ header: AgeHeader, with key: AgeKey) throws -> [UInt8] {
        let stanzas = header.stanzas
        // "The identity implementation MUST reject headers where an scrypt stanza is present alongside any other
        // stanza." https://c2sp.org/age#the-scrypt-recipient-type
        if stanzas.count > 1, let scrypt = stanzas.first(where: { $0.type == AgeScryptStanza.type }) {
            throw AgeError.malformedHeader(line: scrypt.line, reason: "an scrypt stanza is not the only stanza")
        }
        let types = stanzas.map(\.type)
        switch key {
        case .recipients:
            throw AgeError.recipientsCannotDecrypt
        case .identities(let identities):
            for stanza in stanzas where stanza.type == AgeX25519Stanza.type {
                if let fileKey = try AgeX25519Stanza.unwrap(stanza, with: identities) { return fileKey }
            }
            throw AgeError.noIdentityMatches(stanzaTypes: types)
        case .passphrase(let passphrase):
            guard let stanza = stanzas.first, stanza.type == AgeScryptStanza.type else {
                throw AgeError.notPassphraseEncrypted(stanzaTypes: types)
            }
            return try AgeScryptStanza.unwrap(stanza, passphrase: passphrase)
        }
    }
}
