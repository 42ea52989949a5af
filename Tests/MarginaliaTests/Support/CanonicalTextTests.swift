import Foundation
import Testing
@testable import Marginalia
import MarginaliaTestSupport

/// `canonicallyComposed` is `precomposedStringWithCanonicalMapping`, with ASCII text passed through.
@Suite struct CanonicalTextTests {
    @Test func asciiTextIsItsOwnNFC() {
        let ascii = (0..<128).map { Character(Unicode.Scalar(UInt8($0))) }
        for character in ascii {
            let text = String(character)
            #expect(text.precomposedStringWithCanonicalMapping.utf8.elementsEqual(text.utf8),
                    "\(character.asciiValue ?? 0)")
            #expect(text.canonicallyComposed.utf8.elementsEqual(text.utf8))
        }
        let all = String(ascii)
        #expect(all.precomposedStringWithCanonicalMapping.utf8.elementsEqual(all.utf8))
        #expect(String(all.reversed()).precomposedStringWithCanonicalMapping.utf8.elementsEqual(all.reversed().map {
            $0.asciiValue ?? 0
        }))
    }

    @Test func otherTextIsComposedAsFoundationComposesIt() {
        let seed = TestSeed.printed(for: "CanonicalTextTests")
        var generator = SeededGenerator(seed: seed)
        let pieces: [String] = [
            "a", "s", "t", "\u{0306}", "\u{0302}", "\u{0327}", "\u{0326}", "ă", "ş", "ţ", "ș", "é", "e\u{0301}",
            "A", " ", "-", "ﬁ", "Å", "\u{212B}", "한", "\u{1100}\u{1161}",
        ]
        for _ in 0..<2000 {
            let text = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                pieces[Int.random(in: 0..<pieces.count, using: &generator)]
            }.joined()
            #expect(text.canonicallyComposed.utf8.elementsEqual(text.precomposedStringWithCanonicalMapping.utf8),
                    "seed \(seed): \(Array(text.unicodeScalars))")
        }
    }
}
