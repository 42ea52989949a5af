import Foundation
import Testing
@testable import Marginalia

/// Search folding, checked against real Romanian text rather than documentation.
@Suite struct SearchFoldingTests {
    /// The reference: each word of the passages, with case and diacritics stripped, and the passages it is in.
    func strippedWordIndex(_ passages: [Passage]) -> [String: Set<String>] {
        var index: [String: Set<String>] = [:]
        for passage in passages {
            for word in FoldedText(passage.text, level: .words).string.split(separator: " ") {
                index[String(word), default: []].insert(passage.id)
            }
        }
        return index
    }

    func allPassages(_ store: AnnotationStore) throws -> [Passage] {
        try store.documents().flatMap { try store.passages(document: $0.id) }
    }

    @Test(arguments: ["eminescu-2026.1.json", "eminescu-2026.2.json"])
    func wordsTypedWithoutDiacriticsFindWhatAStrippingReferenceFinds(_ sample: String) throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory)
        try store.attachContent(path: try Samples.buildContent(sample, in: directory))
        let passages = try allPassages(store)
        // Every word of the corpus that carries a Romanian diacritic and occurs at least three times.
        var counts: [String: Int] = [:]
        for passage in passages {
            for word in passage.text.lowercased().split(whereSeparator: { !$0.isLetter }) where word.count >= 3 {
                if word.unicodeScalars.contains(where: { "ăâîşţșț".unicodeScalars.contains($0) }) {
                    counts[String(word), default: 0] += 1
                }
            }
        }
        let words = counts.filter { $0.value >= 3 }.keys.sorted()
        #expect(words.count > 150, "enough real words to be a test")
        let index = strippedWordIndex(passages)
        for word in words {
            let typed = FoldedText(word).string  // what a reader types: no diacritics at all
            let expected = index[typed] ?? []
            #expect(!expected.isEmpty)
            let found = Set(try store.searchContent(typed, limit: 10_000, matchingInflections: false).map(\.passage))
            #expect(found == expected, "\(sample): '\(typed)' (\(word))")
            // Typed in capitals, and with the diacritics written the other way (cedilla ↔ comma below).
            let swapped = String(word.map { ["ş": "ș", "ș": "ş", "ţ": "ț", "ț": "ţ"][$0] ?? $0 })
            for variant in [typed.uppercased(), swapped, swapped.uppercased()] {
                #expect(Set(try store.searchContent(variant, limit: 10_000, matchingInflections: false)
                    .map(\.passage)) == expected,
                        "\(sample): '\(variant)'")
            }
        }
    }

    @Test func everyRomanianDiacriticFoldsInBothEncodingsAndCases() throws {
        let letters: [(String, String)] = [
            ("ă", "a"), ("Ă", "a"), ("â", "a"), ("Â", "a"), ("î", "i"), ("Î", "i"),
            ("ş", "s"), ("Ş", "s"), ("ș", "s"), ("Ș", "s"), ("ţ", "t"), ("Ţ", "t"), ("ț", "t"), ("Ț", "t"),
        ]
        let passages = letters.enumerated().map { index, pair in ("d.\(index + 1)", "zz\(pair.0)zz cuvânt") }
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: makeSource([("d", passages)]))
        for (index, pair) in letters.enumerated() {
            let plain = "zz\(pair.1)zz"
            let hits = Set(try store.searchContent(plain, limit: 100, matchingInflections: false).map(\.passage))
            // Plain letters find every variant of the same base letter, and nothing else.
            let expected = Set(letters.enumerated().filter { $0.element.1 == pair.1 }.map { "d.\($0.offset + 1)" })
            #expect(hits == expected, "\(plain)")
            #expect(hits.contains("d.\(index + 1)"))
            // And the letter itself, in either case, finds the same.
            #expect(Set(try store.searchContent("ZZ\(pair.0.uppercased())ZZ", limit: 100, matchingInflections: false)
                .map(\.passage)) == expected)
        }
    }

    @Test func phrasesPrefixesRankingSnippetsAndCounts() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: makeSource([("d", [
            ("d.1", "Ştiinţa şi ţara"),
            ("d.2", "știința nouă a țării noastre, știința"),
            ("d.3", "ţara, ţara mea"),
            ("d.4", "o ştiin\u{AD}ţă ascunsă"),
        ])]))
        try store.createAnnotation(.highlight, at: AnchorRequest(passage: "d.3", start: 0, end: 4))
        #expect(try store.searchContent("stiint*").map(\.passage).sorted() == ["d.1", "d.2", "d.4"])
        #expect(try store.searchContent("ştiin*").map(\.passage).sorted() == ["d.1", "d.2", "d.4"])
        #expect(try store.searchContent("\"tara mea\"").map(\.passage) == ["d.3"])
        #expect(try store.searchContent("\"mea tara\"").isEmpty)
        #expect(try store.searchContent("tara -mea").map(\.passage) == ["d.1"])
        #expect(try store.searchContent("mea OR noastre").map(\.passage).sorted() == ["d.2", "d.3"])
        // bm25: the passage that says "ţara" twice ranks first.
        let ranked = try store.searchContent("tara")
        #expect(ranked.first?.passage == "d.3" && ranked.first?.annotationCount == 1)
        #expect(ranked.first?.snippet == "[ţara], [ţara] mea")
        #expect(zip(ranked, ranked.dropFirst()).allSatisfy { $0.score <= $1.score })
        // A soft hyphen inside a word does not split it.
        #expect(try store.searchContent("stiinta").map(\.passage).sorted() == ["d.1", "d.2", "d.4"])
    }

    @Test func malformedQueriesGiveClearErrorsNotSQLiteMessages() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: makeSource([("d", [("d.1", "text AND NEAR(x) col:umn")])]))
        let refusals: [(String, String)] = [
            ("", "it has no words to look for"),
            ("   ", "it has no words to look for"),
            ("\"unclosed", "a quote (\") is not closed"),
            ("OR text", "OR needs a term on each side"),
            ("text OR", "OR needs a term on each side"),
            ("-text", "it only excludes words; say what to look for"),
            ("*** ...", "it has no words to look for"),
        ]
        for (query, reason) in refusals {
            #expect(throws: MarginaliaError(SearchError.malformedQuery(query, reason: reason))) { _ = try store.searchContent(query) }
        }
        // FTS5 syntax typed by a reader is plain text, never an SQLite syntax error.
        for query in ["AND", "NEAR(x)", "col:umn", "text^", "(text", "a\"b\"", "NOT"] {
            _ = try store.searchContent(query)
        }
        #expect(try store.searchContent("col:umn").map(\.passage) == ["d.1"])
    }

    @Test func notesSearchFoldsTheSameWay() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: makeSource([("d", [("d.1", "A fost odată ca-n poveşti")])]))
        let note = try store.createAnnotation(
            .note, at: AnchorRequest(passage: "d.1", quote: "A fost"), note: "Ţara și știința")
        let highlight = try store.createAnnotation(.highlight, at: AnchorRequest(passage: "d.1", quote: "poveşti"))
        #expect(try store.searchNotes("tara").map(\.id) == [note.id])
        #expect(try store.searchNotes("STIINTA").map(\.id) == [note.id])
        #expect(try store.searchNotes("povesti").map(\.id) == [highlight.id])
        try store.editAnnotation(id: note.id, note: "altceva")
        #expect(try store.searchNotes("tara").isEmpty)
        try store.deleteAnnotation(id: highlight.id)
        #expect(try store.searchNotes("povesti").isEmpty)
    }
}
