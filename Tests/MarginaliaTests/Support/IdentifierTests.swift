import Foundation
import Testing
@testable import Marginalia

/// New ids are version 7 UUIDs: well formed, unique, and in the order they were made.
@Suite struct IdentifierTests {
    @Test func idsAreVersion7UUIDsInTheOrderTheyWereMade() throws {
        let before = Timestamp.nowMilliseconds()
        let made = (0..<20_000).map { _ in Identifiers.make() }
        let after = Timestamp.nowMilliseconds()
        #expect(made == made.sorted())
        #expect(Set(made).count == made.count)
        for id in made.prefix(100) {
            let parts = id.split(separator: "-").map(String.init)
            #expect(parts.map(\.count) == [8, 4, 4, 4, 12], "\(id)")
            #expect(id == id.lowercased() && UUID(uuidString: id) != nil, "\(id)")
            #expect(parts[2].first == "7", "version of \(id)")
            #expect("89ab".contains(parts[3].first ?? "x"), "variant of \(id)")
            #expect(Identifiers.isValidMachineID(id))
            // The first 48 bits are the Unix time in milliseconds.
            let milliseconds = try #require(Int64(parts[0] + parts[1], radix: 16))
            #expect(milliseconds >= before && milliseconds <= after + 20_000 / 4096 + 1, "\(id)")
        }
    }

    @Test func theSequenceNeverGoesBackwards() {
        let sequence = IdentifierSequence()
        #expect(sequence.next(now: 1_000) == (1_000, 0))
        #expect(sequence.next(now: 1_000) == (1_000, 1))
        // The clock stepping back keeps counting on from the last millisecond.
        #expect(sequence.next(now: 900) == (1_000, 2))
        #expect(sequence.next(now: 1_001) == (1_001, 0))
        // A spent counter borrows the next millisecond.
        for expected in 1...0x0FFF { #expect(sequence.next(now: 1_001).counter == expected) }
        #expect(sequence.next(now: 1_001) == (1_002, 0))
        #expect(sequence.next(now: 1_002) == (1_002, 1))
    }
}
