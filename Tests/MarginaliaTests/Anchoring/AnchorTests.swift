import Testing
@testable import Marginalia

@Suite struct AnchorTests {
    let source = makeSource([
        ("luceafarul", [
            ("luceafarul.1", "A fost odată ca-n poveşti,"),
            ("luceafarul.2", "A fost ca niciodată,"),
            ("luceafarul.3", "Din rude mari împărăteşti,"),
            ("luceafarul.4", "O prea frumoasă fată."),
        ]),
        ("glossa", [("glossa.1", "Vreme trece, vreme vine,")]),
    ])

    @Test func offsetsCountCodePointsAndCaptureContext() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        let anchor = try store.resolveAnchor(
            AnchorRequest(passage: "luceafarul.1", start: 18, end: 25), kind: .highlight)
        #expect(anchor.quote == "poveşti")
        #expect(anchor.prefix == "A fost odată ca-n ")
        #expect(anchor.suffix == ",")
        #expect(anchor.start == TextPosition(passage: "luceafarul.1", offset: 18))
        #expect(anchor.end == TextPosition(passage: "luceafarul.1", offset: 25))
        #expect(anchor.document == "luceafarul")
        #expect(anchor.edition == "test-1")
    }

    @Test func aQuoteIsFoundExactlyOrIgnoringDiacritics() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        let exact = try store.resolveAnchor(
            AnchorRequest(passage: "luceafarul.3", quote: "împărăteşti"), kind: .highlight)
        #expect(exact.start.offset == 14 && exact.end.offset == 25)
        // Typed with comma-below ș where the text has cedilla ş, and without diacritics at all.
        for typed in ["împărătești", "imparatesti", "IMPARATESTI"] {
            let folded = try store.resolveAnchor(AnchorRequest(passage: "luceafarul.3", quote: typed), kind: .highlight)
            #expect(folded.quote == "împărăteşti")
        }
    }

    @Test func aQuoteMustOccurExactlyOnce() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        #expect(throws: MarginaliaError(StoreError.invalidAnchor(reason: "\"nimic\" is not in luceafarul.1"))) {
            _ = try store.resolveAnchor(AnchorRequest(passage: "luceafarul.1", quote: "nimic"), kind: .highlight)
        }
        // An exact match wins over a folded one: "vreme" is there once as typed.
        #expect(try store.resolveAnchor(AnchorRequest(passage: "glossa.1", quote: "vreme"), kind: .highlight)
            .start.offset == 13)
        #expect(throws: MarginaliaError(StoreError.invalidAnchor(
            reason: "\"VREME\" occurs 2 times in glossa.1; give offsets (PASSAGE:START-END) to choose"))) {
            _ = try store.resolveAnchor(AnchorRequest(passage: "glossa.1", quote: "VREME"), kind: .highlight)
        }
        // Offsets narrow the search to one occurrence.
        let second = try store.resolveAnchor(
            AnchorRequest(passage: "glossa.1", start: 10, quote: "VREME"), kind: .highlight)
        #expect(second.start.offset == 13 && second.quote == "vreme")
    }

    @Test func aRangeMayCrossPassagesOfOneDocument() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        let anchor = try store.resolveAnchor(
            AnchorRequest(passage: "luceafarul.1", start: 18, endPassage: "luceafarul.2", endOffset: 6),
            kind: .highlight)
        #expect(anchor.quote == "poveşti,\nA fost")
        #expect(anchor.start == TextPosition(passage: "luceafarul.1", offset: 18))
        #expect(anchor.end == TextPosition(passage: "luceafarul.2", offset: 6))
        #expect(anchor.suffix == " ca niciodată,")
        #expect(throws: MarginaliaError(StoreError.invalidAnchor(
            reason: "glossa.1 is in document glossa, not luceafarul like luceafarul.1"))) {
            _ = try store.resolveAnchor(
                AnchorRequest(passage: "luceafarul.1", endPassage: "glossa.1"), kind: .highlight)
        }
        #expect(throws: MarginaliaError(StoreError.invalidAnchor(
            reason: "luceafarul.1 comes before luceafarul.3; give the earlier passage first"))) {
            _ = try store.resolveAnchor(
                AnchorRequest(passage: "luceafarul.3", endPassage: "luceafarul.1"), kind: .highlight)
        }
    }

    @Test func rangesOutsideTheContentAreRefused() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        #expect(throws: MarginaliaError(StoreError.passageNotFound(id: "luceafarul.99"))) {
            _ = try store.resolveAnchor(AnchorRequest(passage: "luceafarul.99"), kind: .highlight)
        }
        #expect(throws: MarginaliaError(StoreError.invalidAnchor(reason: "offset 40 is past the end of luceafarul.2 (20 characters)"))) {
            _ = try store.resolveAnchor(AnchorRequest(passage: "luceafarul.2", start: 3, end: 40), kind: .highlight)
        }
        #expect(throws: MarginaliaError(StoreError.invalidAnchor(reason: "the range 5-5 is empty or reversed"))) {
            _ = try store.resolveAnchor(AnchorRequest(passage: "luceafarul.2", start: 5, end: 5), kind: .highlight)
        }
        #expect(try store.changeCount() == 0)
    }

    @Test func withoutContentNothingCanBeAnchored() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory)
        #expect(throws: MarginaliaError(StoreError.contentUnavailable(reason: "no content is attached"))) {
            _ = try store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.1"))
        }
    }
}
