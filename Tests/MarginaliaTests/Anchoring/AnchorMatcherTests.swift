import Testing
@testable import Marginalia

@Suite struct AnchorMatcherTests {
    func locate(_ quote: String, in text: String, near origin: Int = 0,
                wholeWords: (Bool, Bool) = (true, true)) -> (String, AnchorMatcher.Quality)? {
        let scalars = Array(text.unicodeScalars)
        guard let match = AnchorMatcher.locate(quote, in: scalars, near: origin, wholeWords: wholeWords) else {
            return nil
        }
        return (String(scalars: scalars[match.range]), match.quality)
    }

    @Test func exactWinsAndTheNearestOccurrenceIsChosen() {
        let text = "vreme trece, vreme vine"
        let scalars = Array(text.unicodeScalars)
        #expect(AnchorMatcher.locate("vreme", in: scalars, near: 0)?.range == 0..<5)
        #expect(AnchorMatcher.locate("vreme", in: scalars, near: 12)?.range == 13..<18)
        #expect(locate("trece", in: text)?.1 == .exact)
    }

    @Test func respellingsAreFoldedMatches() throws {
        // Cedilla in the old quote, comma-below in the new text; a soft hyphen gone; spacing and punctuation changed.
        let cases = [
            ("simţim ca-n vis", "le simțim ca-n vis pe toate", "simțim ca-n vis"),
            ("liniş\u{AD}tea serii", "În liniștea serii", "liniștea serii"),
            ("Vreme trece vreme vine", "Vreme trece, vreme vine,", "Vreme trece, vreme vine"),
            ("ŞTIINŢĂ", "o știință nouă", "știință"),
        ]
        for (quote, text, expected) in cases {
            let found = try #require(locate(quote, in: text), "\(quote)")
            #expect(found.0 == expected && found.1 == .folded, "\(quote)")
        }
    }

    @Test func smallRewordingsAreCloseMatchesWithinTheThreshold() throws {
        let reordered = try #require(
            locate("în ce o să stâng", in: "Și nu știu gândirea-mi în ce să o stâng:"))
        #expect(reordered.0 == "în ce să o stâng")
        #expect(reordered.1 == .close(edits: 4))
        // A word replaced at the start is taken whole, not from its middle.
        let replaced = try #require(locate("Peste ramuri de arin", in: "Dintre ramuri de arin"))
        #expect(replaced.0 == "Dintre ramuri de arin")
        // The same with a quote that started mid-word: no widening.
        let partial = try #require(
            locate("este ramuri de arin", in: "Dintre ramuri de arin", wholeWords: (false, true)))
        #expect(partial.0 == "ntre ramuri de arin")
    }

    @Test func worseThanTheThresholdIsNoMatch() {
        // 16 folded characters allow 4 edits; this needs more.
        #expect(locate("în ce o să stâng", in: "cu totul alte vorbe aici") == nil)
        // Short quotes are never matched approximately.
        #expect(locate("dor", in: "dar") == nil)
        #expect(locate("doruri", in: "dorul") == nil)  // 6 folded characters allow 1 edit; "dorul" needs 2
        #expect(locate("", in: "text") == nil)
    }

    @Test func theThresholdIsOneEditInFour() throws {
        // 20 folded characters: 5 edits pass, 6 do not.
        let quote = "abcdefghijklmnopqrst"
        #expect(try #require(locate(quote, in: "xx abcdeXXXXXklmnopqrst yy")).1 == .close(edits: 5))
        #expect(locate(quote, in: "xx abcdXXXXXXklmnopqrst yy") == nil)
    }
}
