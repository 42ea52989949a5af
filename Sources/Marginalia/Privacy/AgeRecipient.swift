/// An age X25519 recipient: the public key a file is encrypted to, written `age1…`.
///
///     let recipient = try AgeRecipient(parsing: "age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xeexvn73equnujwj")
///     recipient.encoded    // the same string
public struct AgeRecipient: Sendable, Hashable, CustomStringConvertible {
    /// The 32-byte X25519 public key.
    package let publicKey: [UInt8]

    /// The recipient of a 32-byte X25519 public key.
    package init(publicKey: [UInt8]) {
        precondition(publicKey.count == 32, "an X25519 public key is 32 bytes")
        self.publicKey = publicKey
    }

    /// The recipient written in `text` (`age1…`, Bech32, lowercase or uppercase).
    ///
    /// - Throws: `MarginaliaError` (`.invalidArgument`) saying what is wrong: the prefix, a character, the
    ///   checksum, the length.
    public init(parsing text: String) throws {
        self = try MarginaliaError.classifying { try AgeRecipient(text: text) }
    }

    /// The recipient written in `text`; throws `AgeError.invalidRecipient`.
    package init(text: String) throws {
        let decoded: (hrp: String, data: [UInt8])
        do {
            decoded = try Bech32.decode(text)
        } catch {
            throw AgeError.invalidRecipient(text, reason: AgeKeyText.reason(error))
        }
        guard decoded.hrp == "age" else {
            throw AgeError.invalidRecipient(text, reason: "the prefix is \"\(decoded.hrp)1\", not \"age1\"")
        }
        guard decoded.data.count == 32 else {
            throw AgeError.invalidRecipient(text, reason: "the key is \(decoded.data.count) bytes, not 32")
        }
        self.init(publicKey: decoded.data)
    }

    /// The recipient as age writes it: `age1…` in lowercase.
    public var encoded: String { Bech32.encode(hrp: "age", data: publicKey) }

    /// The recipient as age writes it (`encoded`).
    public var description: String { encoded }
}

/// What the Bech32 text of an age key says when it is wrong.
enum AgeKeyText {
    /// `failure` in words.
    static func reason(_ failure: Bech32.Failure) -> String {
        switch failure {
        case .mixedCase: return "it mixes lowercase and uppercase letters"
        case .noSeparator: return "it has no \"1\" after its prefix"
        case .invalidCharacter(let character): return "it has the character \"\(character)\", which Bech32 does not use"
        case .tooShort: return "it is too short to hold a checksum"
        case .badChecksum: return "the checksum does not match (a character is wrong or missing)"
        case .badPadding: return "its data does not make whole bytes"
        }
    }
}
