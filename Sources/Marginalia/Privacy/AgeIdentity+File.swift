import Foundation

extension AgeIdentity {
    /// The identities of an identity file as `age-keygen` writes it: `# created: …` and `# public key: age1…`
    /// comments, then the `AGE-SECRET-KEY-1…` line; blank lines and lines starting with `#` are skipped, and a file
    /// may hold several keys.
    ///
    /// - Parameters:
    ///   - text: The file's text.
    ///   - file: The file's path, as given, for errors.
    /// - Throws: `AgeError.invalidIdentityFile` naming the file and the line that is not a key, or
    ///   `AgeError.noIdentitiesInFile`.
    package static func parseFile(_ text: String, file: String) throws -> [AgeIdentity] {
        var identities: [AgeIdentity] = []
        // Lines end with "\n", split by code point: "\r\n" (a file edited on Windows) is one Character, which a
        // split by Character would never cut; the "\r" left is whitespace like any other. A byte order mark
        // before the first line is dropped, as age does.
        var scalars = text.unicodeScalars[...]
        if scalars.first == "\u{FEFF}" { scalars = scalars.dropFirst() }
        for (index, rawLine) in scalars.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(String.UnicodeScalarView(rawLine)).trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            do {
                identities.append(try AgeIdentity(text: line))
            } catch let AgeError.invalidIdentity(reason) {
                throw AgeError.invalidIdentityFile(file: file, line: index + 1,
                                                   reason: "not an age identity: \(reason)")
            }
        }
        guard !identities.isEmpty else { throw AgeError.noIdentitiesInFile(file: file) }
        return identities
    }

    /// This identity as an identity file, in the form `age-keygen` writes:
    ///
    ///     # created: 2024-05-01T12:00:00Z
    ///     # public key: age1…
    ///     AGE-SECRET-KEY-1…
    ///
    /// - Parameter created: The time the comment gives, written in UTC to the second (RFC 3339).
    package func identityFileText(created: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.formatOptions = [.withInternetDateTime]
        return "# created: \(formatter.string(from: created))\n# public key: \(recipient.encoded)\n\(encoded)\n"
    }
}
