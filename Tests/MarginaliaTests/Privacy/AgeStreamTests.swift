import Foundation
import Testing
@testable import Marginalia

/// Encrypting and decrypting in this library alone: round trips of every size around the chunk boundaries, and each
/// alteration, truncation and appended byte refused with its error.
@Suite struct AgeStreamTests {
    static func plaintext(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
    }

    static func refusal(_ file: [UInt8], _ key: AgeKey) -> AgeError? {
        do { _ = try AgeDecryptingSource.decrypt(file, with: key); return nil } catch { return error as? AgeError }
    }

    @Test(arguments: [0, 1, 65_535, 65_536, 65_537, 131_072, 300 * 1024])
    func roundTrips(count: Int) throws {
        let identity = try AgeIdentity.generate()
        let plain = Self.plaintext(count)
        let file = try AgeEncryptingSink.encrypt(plain, to: .recipients([identity.recipient]))
        let chunks = max(1, (count + 65_535) / 65_536)
        #expect(file.count == (try Self.headerSize(file)) + 16 + count + 16 * chunks)
        #expect(try AgeDecryptingSource.decrypt(file, with: .identities([identity])) == plain)
    }

    /// Written in pieces of awkward sizes and read through a source that returns a few bytes at a time.
    @Test func streamsInPieces() throws {
        let identity = try AgeIdentity.generate()
        let plain = Self.plaintext(200_000)
        let sink = ByteArraySink()
        let encryptor = try AgeEncryptingSink(to: .identities([identity]), sink: sink)
        var offset = 0
        for size in [1, 65_535, 1, 65_536, 7, 100_000] where offset < plain.count {
            let end = min(offset + size, plain.count)
            try plain[offset..<end].withUnsafeBytes { try encryptor.write($0) }
            offset = end
        }
        try encryptor.finish()
        #expect(throws: AgeError.alreadyFinished) { try encryptor.finish() }
        let source = try AgeDecryptingSource(with: .identities([identity]),
                                             source: ByteArraySource(sink.bytes, maxReadSize: 999))
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4000)
        while case let count = try buffer.withUnsafeMutableBytes({ try source.read(into: $0) }), count > 0 {
            output += buffer.prefix(count)
        }
        #expect(output == plain)
    }

    @Test func severalRecipientsEachDecrypt() throws {
        let (a, b) = (try AgeIdentity.generate(), try AgeIdentity.generate())
        let file = try AgeEncryptingSink.encrypt([1, 2, 3], to: .recipients([a.recipient, b.recipient]))
        #expect(try AgeDecryptingSource.decrypt(file, with: .identities([b])) == [1, 2, 3])
        #expect(try AgeDecryptingSource.decrypt(file, with: .identities([a])) == [1, 2, 3])
    }

    @Test func passphrase() throws {
        let plain = Self.plaintext(70_000)
        let file = try AgeEncryptingSink.encrypt(plain, to: .passphrase("correct horse"), scryptWorkFactor: 10)
        #expect(String(decoding: file.prefix(32), as: UTF8.self) == "age-encryption.org/v1\n-> scrypt ")
        #expect(try AgeDecryptingSource.decrypt(file, with: .passphrase("correct horse")) == plain)
        #expect(Self.refusal(file, .passphrase("correct horsf")) == .wrongPassphrase)
        #expect(Self.refusal(file, .identities([try AgeIdentity.generate()]))
            == .noIdentityMatches(stanzaTypes: ["scrypt"]))
        let x25519 = try AgeEncryptingSink.encrypt(plain, to: .identities([try AgeIdentity.generate()]))
        #expect(Self.refusal(x25519, .passphrase("x")) == .notPassphraseEncrypted(stanzaTypes: ["X25519"]))
    }

    @Test func passphraseUsesAgesDefaultWorkFactor() throws {
        let file = try AgeEncryptingSink.encrypt([7], to: .passphrase("p"))
        let argumentLine = String(decoding: file.split(separator: 10)[1], as: UTF8.self)
        #expect(argumentLine.hasPrefix("-> scrypt ") && argumentLine.hasSuffix(" 18"))
        #expect(try AgeDecryptingSource.decrypt(file, with: .passphrase("p")) == [7])
    }

    @Test func keysThatCannotBeUsed() throws {
        #expect(throws: AgeError.noRecipients) { try AgeEncryptingSink.encrypt([], to: .recipients([])) }
        let file = try AgeEncryptingSink.encrypt([], to: .identities([try AgeIdentity.generate()]))
        #expect(Self.refusal(file, .recipients([])) == .recipientsCannotDecrypt)
        #expect(Self.refusal(file, .identities([try AgeIdentity.generate()]))
            == .noIdentityMatches(stanzaTypes: ["X25519"]))
    }

    // MARK: - Refusals

    static func headerSize(_ file: [UInt8]) throws -> Int {
        let mac = try #require(file.firstRange(of: Array("\n--- ".utf8)))
        return mac.lowerBound + 1 + 47 + 1
    }

    @Test func alteredHeaderIsRefused() throws {
        let identity = try AgeIdentity.generate()
        let file = try AgeEncryptingSink.encrypt(Self.plaintext(1000), to: .identities([identity]))
        let key = AgeKey.identities([identity])
        let macStart = try Self.headerSize(file) - 44
        var mac = file
        mac[macStart + 5] = mac[macStart + 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(Self.refusal(mac, key) == .headerMACMismatch)
        // A stanza added keeps the header well formed, and the MAC no longer matches it.
        var grease = file
        grease.insert(contentsOf: Array("-> grease\n\n".utf8), at: macStart - 4)
        #expect(Self.refusal(grease, key) == .headerMACMismatch)
        var body = file
        let bodyStart = try #require(file.firstIndex(of: 10).flatMap { line in file[(line + 1)...].firstIndex(of: 10) })
        body[bodyStart + 5] = body[bodyStart + 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(Self.refusal(body, key) == .noIdentityMatches(stanzaTypes: ["X25519"]))
        var version = file
        version[20] = UInt8(ascii: "2")
        #expect(Self.refusal(version, key) == .unsupportedVersion("v2"))
        #expect(Self.refusal(Array("GIF89a".utf8), key) == .notAgeFile)
        #expect(Self.refusal([0x1F, 0x8B, 8, 0], key) == .notAgeFile)
    }

    @Test func alteredPayloadIsRefused() throws {
        let identity = try AgeIdentity.generate()
        let file = try AgeEncryptingSink.encrypt(Self.plaintext(300 * 1024), to: .identities([identity]))
        let payload = try Self.headerSize(file)
        let chunk = 65_536 + 16
        for (offset, index) in [(0, 0), (16, 0), (16 + chunk + 100, 1), (file.count - payload - 1, 4)] {
            var altered = file
            altered[payload + offset] ^= 0x01
            #expect(Self.refusal(altered, .identities([identity])) == .chunkAuthenticationFailed(index: index))
        }
    }

    @Test func truncatedFilesAreRefused() throws {
        let identity = try AgeIdentity.generate()
        let file = try AgeEncryptingSink.encrypt(Self.plaintext(300 * 1024), to: .identities([identity]))
        let payload = try Self.headerSize(file)
        let chunk = 65_536 + 16
        let cases: [(Int, AgeError)] = [
            (10, .truncatedHeader), (payload - 1, .truncatedHeader), (payload, .truncatedPayload),
            (payload + 15, .truncatedPayload), (payload + 16, .truncatedPayload),
            (payload + 16 + chunk, .truncatedPayload), (payload + 16 + 4 * chunk, .truncatedPayload),
            (payload + 16 + 100, .chunkAuthenticationFailed(index: 0)),
            (payload + 16 + 2 * chunk + 5, .truncatedPayload),
            (payload + 16 + 2 * chunk + 100, .chunkAuthenticationFailed(index: 2)),
            (file.count - 1, .chunkAuthenticationFailed(index: 4)),
        ]
        for (length, error) in cases {
            #expect(Self.refusal(Array(file.prefix(length)), .identities([identity])) == error, "\(length)")
        }
        #expect(Self.refusal([], .identities([identity])) == .notAgeFile)
    }

    /// An appended byte after a full last chunk is trailing data; after a shorter one it makes the last chunk fail.
    @Test func appendedBytesAreRefused() throws {
        let identity = try AgeIdentity.generate()
        let full = try AgeEncryptingSink.encrypt(Self.plaintext(65_536), to: .identities([identity]))
        #expect(Self.refusal(full + [0], .identities([identity])) == .trailingData)
        #expect(Self.refusal(full + Self.plaintext(70_000), .identities([identity])) == .trailingData)
        let short = try AgeEncryptingSink.encrypt(Self.plaintext(1000), to: .identities([identity]))
        #expect(Self.refusal(short + [0], .identities([identity])) == .chunkAuthenticationFailed(index: 0))
    }

    @Test func armoredFilesAndTheFirstBytes() {
        let armored = Array("-----BEGIN AGE ENCRYPTED FILE-----\nYWdl\n-----END AGE ENCRYPTED FILE-----\n".utf8)
        #expect(Self.refusal(armored, .passphrase("x")) == .armored)
        #expect(AgeFormat.looksLikeAge(Array("age-encryption.org/v1\n-> X25519".utf8)))
        #expect(AgeFormat.looksLikeAge(Array("age-enc".utf8)))
        #expect(!AgeFormat.looksLikeAge([0x1F, 0x8B, 8, 0]))
        #expect(!AgeFormat.looksLikeAge([]))
        #expect(!AgeFormat.looksLikeAge(Array("age-encryption.org/v2\n".utf8)))
        #expect(AgeFormat.looksLikeArmoredAge(armored) && !AgeFormat.looksLikeArmoredAge(Array("age-enc".utf8)))
    }
}
