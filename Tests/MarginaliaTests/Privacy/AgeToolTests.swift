import Foundation
import Testing
@testable import Marginalia
import MarginaliaTestSupport

/// Files this library writes decrypt with the `age` tool, and files `age` writes decrypt here.
///
/// Passphrase files are not exchanged with the tool: age 1.1 reads a passphrase only from a terminal.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/age")
    && FileManager.default.isExecutableFile(atPath: "/usr/bin/age-keygen")))
struct AgeToolTests {
    static let sizes = [0, 65_536, 65_537, 300 * 1024]

    /// A fresh directory holding a key made by `age-keygen`, removed after `body`.
    static func withKey(_ body: (URL, URL, [AgeIdentity]) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("marginalia-age-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("key.txt")
        let keygen = try ChildProcess("/usr/bin/age-keygen", ["-o", keyFile.path]).run()
        #expect(keygen.status == 0, "\(keygen.stderr)")
        let identities = try AgeIdentity.parseFile(String(contentsOf: keyFile, encoding: .utf8), file: keyFile.path)
        #expect(keygen.stderr.contains("Public key: \(identities[0].recipient.encoded)"))
        try body(directory, keyFile, identities)
    }

    @Test(arguments: sizes) func ageDecryptsWhatIsEncryptedHere(count: Int) throws {
        try Self.withKey { directory, keyFile, identities in
            let plain = AgeStreamTests.plaintext(count)
            let file = directory.appendingPathComponent("plain.age")
            try Data(try AgeEncryptingSink.encrypt(plain, to: .recipients([identities[0].recipient]))).write(to: file)
            let age = try ChildProcess("/usr/bin/age", ["-d", "-i", keyFile.path, file.path]).run()
            #expect(age.status == 0, "\(age.stderr)")
            #expect(Array(age.output) == plain)
        }
    }

    @Test(arguments: sizes) func whatAgeEncryptsDecryptsHere(count: Int) throws {
        try Self.withKey { _, _, identities in
            let plain = AgeStreamTests.plaintext(count)
            let other = try AgeIdentity.generate()
            let age = try ChildProcess("/usr/bin/age", ["-r", other.recipient.encoded, "-r",
                                                         identities[0].recipient.encoded], input: Data(plain)).run()
            #expect(age.status == 0, "\(age.stderr)")
            #expect(try AgeDecryptingSource.decrypt(Array(age.output), with: .identities(identities)) == plain)
            #expect(try AgeDecryptingSource.decrypt(Array(age.output), with: .identities([other])) == plain)
        }
    }

    @Test func ageReadsAnIdentityFileWrittenHere() throws {
        try Self.withKey { directory, _, _ in
            let identity = try AgeIdentity.generate()
            let keyFile = directory.appendingPathComponent("ours.txt")
            try identity.identityFileText(created: Date()).write(to: keyFile, atomically: true, encoding: .utf8)
            let file = directory.appendingPathComponent("x.age")
            try Data(try AgeEncryptingSink.encrypt([1, 2, 3], to: .identities([identity]))).write(to: file)
            let age = try ChildProcess("/usr/bin/age", ["-d", "-i", keyFile.path, file.path]).run()
            #expect(age.status == 0 && Array(age.output) == [1, 2, 3], "\(age.stderr)")
        }
    }

    @Test func ageFilesAreRefusedWithTheirErrors() throws {
        try Self.withKey { _, _, identities in
            let key = AgeKey.identities(identities)
            let plain = AgeStreamTests.plaintext(100_000)
            let age = try ChildProcess("/usr/bin/age", ["-r", identities[0].recipient.encoded],
                                       input: Data(plain)).run()
            let file = Array(age.output)
            let payload = try AgeStreamTests.headerSize(file)
            #expect(AgeStreamTests.refusal(file, .identities([try AgeIdentity.generate()]))
                == .noIdentityMatches(stanzaTypes: ["X25519"]))
            var header = file
            header[payload - 10] = header[payload - 10] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            #expect(AgeStreamTests.refusal(header, key) == .headerMACMismatch)
            var chunk = file
            chunk[payload + 16 + 65_552 + 3] ^= 0x80
            #expect(AgeStreamTests.refusal(chunk, key) == .chunkAuthenticationFailed(index: 1))
            #expect(AgeStreamTests.refusal(Array(file.prefix(payload + 16 + 65_552)), key) == .truncatedPayload)
            #expect(AgeStreamTests.refusal(Array(file.prefix(payload - 20)), key) == .truncatedHeader)
            #expect(AgeStreamTests.refusal(Array(file.dropLast()), key) == .chunkAuthenticationFailed(index: 1))
            #expect(AgeStreamTests.refusal(file + [0x0A], key) == .chunkAuthenticationFailed(index: 1))
            let armored = try ChildProcess("/usr/bin/age", ["-a", "-r", identities[0].recipient.encoded],
                                           input: Data(plain)).run()
            #expect(AgeStreamTests.refusal(Array(armored.output), key) == .armored)
        }
    }
}
