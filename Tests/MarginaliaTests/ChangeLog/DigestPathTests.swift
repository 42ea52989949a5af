import Foundation
import Testing
@testable import Marginalia
import MarginaliaTestSupport

/// The digest of a change about to be appended is computed straight into one buffer, and SHA-256's hex written
/// straight into its string: both give exactly the bytes of the plain definitions (`ChangeDigest` over the seven
/// stored texts and the wall time when there is one, two lowercase hex digits a byte), on seeded random changes.
@Suite struct DigestPathTests {
    /// The chain's definition spelled out plainly: the previous digest's 32 bytes, then each stored text as its
    /// UTF-8 length in 4 bytes, big-endian, and its bytes; SHA-256; lowercase hex.
    static func plainDigest(after previous: String, texts: [String]) throws -> String {
        var input: [UInt8] = stride(from: 0, to: 64, by: 2).map { offset in
            let start = previous.utf8.index(previous.utf8.startIndex, offsetBy: offset)
            return UInt8(String(previous[start..<previous.utf8.index(start, offsetBy: 2)]), radix: 16) ?? 0
        }
        for text in texts {
            let count = UInt32(text.utf8.count)
            input += [24, 16, 8, 0].map { UInt8((count >> $0) & 0xFF) } + Array(text.utf8)
        }
        return plainHex(try SHA256Digest.digest(of: input))
    }

    static func plainHex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    static func randomText(_ generator: inout SeededGenerator, maxLength: Int) -> String {
        let pieces = Array("aăâîşţbcz09 -_\"\\{}:,\u{0}\u{1F}\u{301}é🙂\n")
        let length = Int.random(in: 0...maxLength, using: &generator)
        return String((0..<length).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &generator)] })
    }

    @Test func theDigestOfAChangeToAppendIsThePlainDefinition() throws {
        let seed = TestSeed.printed(for: "DigestPathTests")
        var generator = SeededGenerator(seed: seed)
        var previous = ChangeDigest.genesis
        for round in 0..<500 {
            let change = Change(
                changeID: round % 3 == 0 ? Identifiers.make() : Self.randomText(&generator, maxLength: 40),
                hlc: HLC(milliseconds: Int64.random(in: 0...9_999_999_999_999, using: &generator),
                         counter: Int32.random(in: 0...99_999, using: &generator)),
                device: Self.randomText(&generator, maxLength: 40), entity: round % 5 == 0 ? .position : .annotation,
                entityID: Self.randomText(&generator, maxLength: 60),
                operation: ChangeOperation.allCases.randomElement(using: &generator) ?? .create,
                fields: ChangeFields(),
                wall: round % 4 == 0 ? nil : Int64.random(in: 0...9_999_999_999_999, using: &generator))
            let fields = Self.randomText(&generator, maxLength: round % 50 == 0 ? 5000 : 300)
            let digest = try ChangeDigest.next(after: previous, change: change, fieldsText: fields)
            // As stored: the wall time last, empty when there is none; the digest covers it only when there is.
            let texts = [change.changeID] + change.storedText(fieldsText: fields)
            let covered = Array(texts.dropLast()) + (change.wall.map { [String($0)] } ?? [])
            #expect(digest == (try Self.plainDigest(after: previous, texts: covered)), "seed \(seed), round \(round)")
            #expect(digest == (try ChangeDigest.next(after: previous, columns: texts)), "seed \(seed), round \(round)")
            previous = digest
        }
    }

    @Test func hexIsTwoLowercaseDigitsAByte() throws {
        let seed = TestSeed.printed(for: "DigestPathTests hex")
        var generator = SeededGenerator(seed: seed)
        for length in [0, 1, 31, 32, 33, 64] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(SHA256Digest.hex(ofDigest: bytes) == Self.plainHex(bytes), "seed \(seed)")
        }
        #expect(SHA256Digest.hex(ofDigest: Array(0...255)) == Self.plainHex(Array(0...255)))
        // The FIPS 180-2 example "abc".
        #expect(try SHA256Digest.hex(of: Array("abc".utf8))
            == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func aPreviousDigestThatIsNotOneIsACorruptRow() {
        let change = Change(changeID: "c", hlc: HLC(milliseconds: 1, counter: 0), device: "d", entity: .annotation,
                            entityID: "a", operation: .create, fields: ChangeFields())
        #expect(throws: StoreError.self) { try ChangeDigest.next(after: "zz", change: change, fieldsText: "{}") }
    }
}
