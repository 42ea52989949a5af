import Foundation
import Testing
@testable import Marginalia

/// Recipients, identities and identity files: Bech32 both ways, and each refusal in words.
@Suite struct AgeKeyTests {
    // Made by age-keygen 1.1.1 for this test.
    static let keygenFile = """
        # created: 2026-12-02T06:22:31Z
        # public key: age12j9newe3s8cd03edjudu94a3v9ssf7fmtys65cac5hmax87uyesqnddak8
        AGE-SECRET-KEY-1C2WESDYMAMMZXWS30UXAKAMNN3T38T23R7V3DEP2VA0GHYQY6KTQFSL869

        """
    static let publicKey = "age12j9newe3s8cd03edjudu94a3v9ssf7fmtys65cac5hmax87uyesqnddak8"
    static let secretKey = "AGE-SECRET-KEY-1C2WESDYMAMMZXWS30UXAKAMNN3T38T23R7V3DEP2VA0GHYQY6KTQFSL869"

    @Test func anAgeKeygenKeyGivesItsPrintedPublicKey() throws {
        let identity = try AgeIdentity(parsing: Self.secretKey)
        #expect(identity.recipient.encoded == Self.publicKey)
        #expect(identity.encoded == Self.secretKey)
        #expect(try AgeRecipient(parsing: Self.publicKey).encoded == Self.publicKey)
        #expect(identity.description == "AgeIdentity(\(Self.publicKey))")
    }

    @Test func theSpecExampleKeys() throws {
        // https://c2sp.org/age#the-x25519-recipient-type: an identity of 32 bytes of 0x42 and its recipient.
        let identity = try AgeIdentity(
            parsing: "AGE-SECRET-KEY-1GFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPQ4EGAEX")
        #expect(identity.secretKey == [UInt8](repeating: 0x42, count: 32))
        #expect(identity.recipient.encoded == "age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xeexvn73equnujwj")
    }

    @Test func bech32RoundTrips() throws {
        for length in [0, 1, 5, 31, 32, 33, 100] {
            let data = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let text = Bech32.encode(hrp: "age", data: data)
            #expect(try Bech32.decode(text) == ("age", data))
            #expect(try Bech32.decode(text.uppercased()) == ("age", data))
        }
        // BIP-173's valid test vector "A12UEL5L": the prefix "a" and no data.
        #expect(try Bech32.decode("A12UEL5L") == ("a", []))
        #expect(try Bech32.decode("a12uel5l") == ("a", []))
    }

    @Test func aGeneratedIdentityRoundTrips() throws {
        let identity = try AgeIdentity.generate()
        let parsed = try AgeIdentity(parsing: identity.encoded)
        #expect(parsed.secretKey == identity.secretKey && parsed.recipient == identity.recipient)
        #expect(identity.encoded.hasPrefix("AGE-SECRET-KEY-1") && identity.encoded.count == 74)
        #expect(identity.recipient.encoded.hasPrefix("age1") && identity.recipient.encoded.count == 62)
    }

    @Test func badRecipientsSayWhatIsWrong() {
        func reason(_ text: String) -> AgeError? {
            thrownError(AgeError.self) { _ = try AgeRecipient(parsing: text) }
        }
        var typo = Array(Self.publicKey)
        typo[10] = typo[10] == "q" ? "p" : "q"
        let mistyped = String(typo)
        #expect(reason(mistyped) == .invalidRecipient(
            mistyped, reason: "the checksum does not match (a character is wrong or missing)"))
        let secret = Self.secretKey.lowercased()
        #expect(reason(secret) == .invalidRecipient(secret, reason: "the prefix is \"age-secret-key-1\", not \"age1\""))
        let short = Bech32.encode(hrp: "age", data: [UInt8](repeating: 1, count: 31))
        #expect(reason(short) == .invalidRecipient(short, reason: "the key is 31 bytes, not 32"))
        let mixed = "Age" + Self.publicKey.dropFirst(3)
        #expect(reason(mixed) == .invalidRecipient(mixed, reason: "it mixes lowercase and uppercase letters"))
        #expect(reason("age1b") == .invalidRecipient("age1b", reason:
            "it has the character \"b\", which Bech32 does not use"))
        #expect(AgeError.invalidRecipient("age1b", reason: "r").description == "invalid age recipient \"age1b\": r")
    }

    @Test func badIdentitiesSayWhatIsWrongAndNotTheKey() {
        func reason(_ text: String) -> AgeError? {
            thrownError(AgeError.self) { _ = try AgeIdentity(parsing: text) }
        }
        #expect(reason(Self.publicKey) == .invalidIdentity(reason: "the prefix is not \"AGE-SECRET-KEY-1\""))
        #expect(reason(String(Self.secretKey.dropLast())) == .invalidIdentity(
            reason: "the checksum does not match (a character is wrong or missing)"))
        #expect(reason("") == .invalidIdentity(reason: "it has no \"1\" after its prefix"))
    }

    @Test func anAgeKeygenFileParses() throws {
        let identities = try AgeIdentity.parseFile(Self.keygenFile, file: "key.txt")
        #expect(identities.map(\.encoded) == [Self.secretKey])
        let two = Self.keygenFile + "\r\n# another\n" + (try AgeIdentity.generate()).encoded + "\r\n"
        #expect(try AgeIdentity.parseFile(two, file: "keys.txt").count == 2)
        // A file saved on Windows: every line ends "\r\n", and a byte order mark leads.
        let windows = "\u{FEFF}" + Self.keygenFile.replacingOccurrences(of: "\n", with: "\r\n")
        #expect(try AgeIdentity.parseFile(windows, file: "key.txt").map(\.encoded) == [Self.secretKey])
    }

    @Test func aBadIdentityFileNamesItsLine() {
        let text = "# created: now\n\n\(Self.publicKey)\n"
        #expect(throws: AgeError.invalidIdentityFile(file: "k.txt", line: 3, reason:
            "not an age identity: the prefix is not \"AGE-SECRET-KEY-1\"")) {
            try AgeIdentity.parseFile(text, file: "k.txt")
        }
        #expect(throws: AgeError.noIdentitiesInFile(file: "k.txt")) {
            try AgeIdentity.parseFile("# x\n", file: "k.txt")
        }
        #expect(AgeError.invalidIdentityFile(file: "k.txt", line: 3, reason: "r").description == "k.txt: line 3: r")
    }

    @Test func theIdentityFileIsWrittenAsAgeKeygenWritesIt() throws {
        let identity = try AgeIdentity(parsing: Self.secretKey)
        let created = try #require(ISO8601DateFormatter().date(from: "2026-12-02T06:22:31Z"))
        #expect(identity.identityFileText(created: created) == Self.keygenFile)
    }

    @Test func base64IsStrict() {
        #expect(AgeBase64.encode([0xFF]) == "/w" && AgeBase64.encode([]) == "" && AgeBase64.encode([1, 2, 3]) == "AQID")
        #expect(AgeBase64.decode("/w") == [0xFF])
        #expect(AgeBase64.decode("/x") == nil)
        #expect(AgeBase64.decode("/w==") == nil)
        #expect(AgeBase64.decode("AQI") == [1, 2])
        #expect(AgeBase64.decode("A") == nil)
        #expect(AgeBase64.decode("AQ-D") == nil)
    }
}
