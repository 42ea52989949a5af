/// Why an age file, key or identity file was refused, or could not be written.
///
/// Each case states what is wrong with what was handed over; none says what to do about it.
package enum AgeError: CategorizedError, Equatable {
    /// The bytes do not start with `age-encryption.org/`: not an age file.
    case notAgeFile
    /// The file is in age's ASCII armor (`-----BEGIN AGE ENCRYPTED FILE-----`), which is not read here.
    case armored
    /// The file is an age file of another version than `v1`.
    case unsupportedVersion(String)
    /// Line `line` (1-based) of the header is not what age's format allows there.
    case malformedHeader(line: Int, reason: String)
    /// The header is longer than `limit` bytes (or has more stanzas than age files need).
    case headerTooLarge(limit: Int)
    /// The file ends inside the header.
    case truncatedHeader
    /// None of the identities unwraps the file key; `stanzaTypes` are the types of the file's recipient stanzas.
    case noIdentityMatches(stanzaTypes: [String])
    /// A passphrase was given, but the file is encrypted to recipients of `stanzaTypes`.
    case notPassphraseEncrypted(stanzaTypes: [String])
    /// The passphrase does not unwrap the file key.
    case wrongPassphrase
    /// The file's scrypt work factor, 2^`logN`, is above the 2^`limit` this reader accepts.
    case workFactorTooHigh(logN: Int, limit: Int)
    /// The header's MAC does not match: the header was altered, or the key that unwrapped it is not the file's.
    case headerMACMismatch
    /// Payload chunk `index` (0-based) failed authentication: it was altered.
    case chunkAuthenticationFailed(index: Int)
    /// The last payload chunk, number `index`, is empty; only a file with an empty payload may have one.
    case emptyLastChunk(index: Int)
    /// The file ends before the payload's last chunk.
    case truncatedPayload
    /// Bytes follow the payload's last chunk.
    case trailingData
    /// `feature` is not available on this platform (scrypt where CryptoKit is the library).
    case unsupportedOnThisPlatform(feature: String)
    /// The string is not an age X25519 recipient (`age1…`): `reason` says why.
    case invalidRecipient(String, reason: String)
    /// The string is not an age X25519 identity (`AGE-SECRET-KEY-1…`): `reason` says why (never the key itself).
    case invalidIdentity(reason: String)
    /// Line `line` (1-based) of identity file `file` is neither a comment nor an identity.
    case invalidIdentityFile(file: String, line: Int, reason: String)
    /// The identity file `file` holds no identity.
    case noIdentitiesInFile(file: String)
    /// Encryption was asked for with no recipient.
    case noRecipients
    /// Decryption was asked for with recipients (public keys); it needs identities or a passphrase.
    case recipientsCannotDecrypt
    /// The encryptor or decryptor was used after it finished or failed.
    case alreadyFinished

    /// The problem in words.
    package var description: String {
        switch self {
        case .notAgeFile: return "not an age file"
        case .armored: return "an ASCII-armored age file, which is not supported"
        case .unsupportedVersion(let version): return "an age file of unsupported version \(version)"
        case .malformedHeader(let line, let reason): return "malformed age header at line \(line): \(reason)"
        case .headerTooLarge(let limit): return "the age header is larger than \(limit) bytes"
        case .truncatedHeader: return "truncated: the file ends inside the age header"
        case .noIdentityMatches(let types):
            if types == ["scrypt"] { return "the file is encrypted with a passphrase, not to an identity" }
            return "no identity matches the file's recipients (stanza types: \(types.joined(separator: ", ")))"
        case .notPassphraseEncrypted(let types):
            return "the file is not encrypted with a passphrase (stanza types: \(types.joined(separator: ", ")))"
        case .wrongPassphrase: return "the passphrase is wrong"
        case .workFactorTooHigh(let logN, let limit):
            return "the scrypt work factor 2^\(logN) is above the limit of 2^\(limit)"
        case .headerMACMismatch: return "the header MAC does not match: the header was altered or the key is wrong"
        case .chunkAuthenticationFailed(let index):
            return "payload chunk \(index) failed authentication: the file was altered or cut short"
        case .emptyLastChunk(let index): return "payload chunk \(index) is an empty last chunk"
        case .truncatedPayload: return "truncated: the file ends before the last payload chunk"
        case .trailingData: return "trailing data after the last payload chunk"
        case .unsupportedOnThisPlatform(let feature): return "\(feature) is unsupported on this platform"
        case .invalidRecipient(let text, let reason): return "invalid age recipient \"\(text)\": \(reason)"
        case .invalidIdentity(let reason): return "invalid age identity: \(reason)"
        case .invalidIdentityFile(let file, let line, let reason): return "\(file): line \(line): \(reason)"
        case .noIdentitiesInFile(let file): return "\(file): no age identity in the file"
        case .noRecipients: return "no recipient to encrypt to"
        case .recipientsCannotDecrypt: return "recipients (public keys) cannot decrypt; identities or a passphrase can"
        case .alreadyFinished: return "the age stream was already finished or failed"
        }
    }

    /// What kind of failure this is for the store's error.
    package var category: MarginaliaError.Category {
        switch self {
        case .noIdentityMatches, .notPassphraseEncrypted, .wrongPassphrase, .unsupportedOnThisPlatform,
             .invalidRecipient, .invalidIdentity, .noRecipients, .recipientsCannotDecrypt:
            return .invalidArgument
        case .alreadyFinished:
            return .io
        default:
            return .invalidData
        }
    }

    /// The identity file (and line) at fault; an encrypted file's own refusals are named by the archive or sync
    /// file that reads it.
    package var facts: ErrorFacts {
        switch self {
        case .invalidIdentityFile(let file, let line, _): return ErrorFacts(file: file, line: line)
        case .noIdentitiesInFile(let file): return ErrorFacts(file: file)
        default: return ErrorFacts()
        }
    }
}
