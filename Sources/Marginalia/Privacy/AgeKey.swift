/// What an age file is encrypted to, or decrypted with.
///
///     try AgeEncryptingSink.encrypt(bytes, to: .recipients([recipient]))
///     try AgeDecryptingSource.decrypt(file, with: .identities(identities))
///     try AgeDecryptingSource.decrypt(file, with: .passphrase("correct horse battery staple"))
public enum AgeKey: Sendable {
    /// Public keys: encrypting writes one X25519 stanza for each; they cannot decrypt.
    case recipients([AgeRecipient])
    /// Secret keys: decrypting tries each on each X25519 stanza; encrypting encrypts to their recipients.
    case identities([AgeIdentity])
    /// A passphrase, through age's scrypt stanza (the only stanza of such a file). Unsupported where CryptoKit is
    /// the cryptography library, which has no scrypt.
    case passphrase(String)
}
