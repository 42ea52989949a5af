/// The bytes of an archive (or a sync segment) as the gzip reader takes them: the file's own bytes, or, for a file
/// encrypted with age, its payload decrypted.
///
/// An encrypted file is recognised by its first bytes, whatever its name; a plain file is read as it is even when a
/// key is given, so that plain and encrypted files can be read side by side.
package enum ArchiveInput {
    /// `source`'s bytes, decrypted with `key` when they are an age file.
    ///
    /// - Parameter path: the file, as its errors name it.
    /// - Throws: `ArchiveError` naming `path`: an encrypted file with no key given (`.key`), a key that does not
    ///   open it (`.key`), a header altered (`.corrupt`) or cut short (`.truncated`); the source's own error.
    package static func plaintext(of source: any ByteSource, path: String, key: AgeKey?) throws -> any ByteSource {
        let head = try PrefixedSource.peek(max(AgeFormat.versionPrefix.count, AgeFormat.armorBegin.count),
                                           from: source)
        let whole = PrefixedSource(head, then: source)
        guard AgeFormat.looksLikeAge(head) || AgeFormat.looksLikeArmoredAge(head) else { return whole }
        guard let key else {
            throw ArchiveError(file: path, kind: .key,
                               reason: "the file is encrypted (age), and no identity or passphrase was given")
        }
        do {
            return try AgeDecryptingSource(with: key, source: whole)
        } catch let error as AgeError {
            throw refusal(error, file: path)
        }
    }

    /// An age failure as the refusal of the archive `file`.
    package static func refusal(_ error: AgeError, file: String) -> ArchiveError {
        ArchiveError(file: file, kind: kind(of: error), reason: "encrypted file: " + error.description)
    }

    private static func kind(of error: AgeError) -> ArchiveError.Kind {
        switch error {
        case .noIdentityMatches, .notPassphraseEncrypted, .wrongPassphrase, .recipientsCannotDecrypt,
             .unsupportedOnThisPlatform, .workFactorTooHigh, .invalidIdentity, .invalidIdentityFile,
             .noIdentitiesInFile, .invalidRecipient, .noRecipients:
            return .key
        case .truncatedHeader, .truncatedPayload:
            return .truncated
        case .notAgeFile, .armored, .unsupportedVersion, .malformedHeader, .headerTooLarge, .headerMACMismatch,
             .chunkAuthenticationFailed, .emptyLastChunk, .trailingData, .alreadyFinished:
            return .corrupt
        }
    }
}
