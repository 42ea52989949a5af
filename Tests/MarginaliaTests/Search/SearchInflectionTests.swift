import Foundation
import Testing
@testable import Marginalia

/// When the words as typed match nothing, words of 5 letters or more are looked for by their stems.
@Suite struct SearchInflectionTests {
    @Test func stemsAreFoldedWordsWithoutTheirFinalVowels() throws {
        #expect(SearchQuery.stem(of: "stiinta") == "stiint")
        #expect(SearchQuery.stem(of: "Ştiinţă") == "stiint")
        #expect(SearchQuery.stem(of: "științei") == "stiint")
        #expect(SearchQuery.stem(of: "luceafarul") == "luceafarul")
        #expect(SearchQuery.stem(of: "tara") == nil)
        #expect(SearchQuery.stem(of: "aiae") == nil)
        #expect(SearchQuery.stem(of: "oaie") == nil)
        #expect(SearchQuery.stem(of: "12345") == nil)
        #expect(SearchQuery.stem(of: "ca-n") == nil)

        let query = try SearchQuery("stiinta \"simtim ca-n vis\" dor* -padurea tara OR codrii",
                                    matchingInflections: true)
        #expect(query.stems == ["stiint", "codr"])
        #expect(query.expression
            == "(\"stiint\" * AND \"simtim ca-n vis\" AND \"dor\" * AND (\"tara\" OR \"codr\" *)) NOT \"padurea\"")
        #expect(try SearchQuery("stiinta").stems.isEmpty)
        #expect(try SearchQuery("stiinta").expression == "\"stiinta\"")
    }

    @Test func theSampleHasNoWordStiintaButStemsFindItsInflectedForms() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory)
        try store.attachContent(path: try Samples.buildContent("eminescu-2026.1.json", in: directory))
        #expect(try store.searchContent("stiinta").isEmpty)
        let hits = try store.searchContent("stiinta", matchingInflections: true)
        #expect(hits.map(\.passage).sorted() == ["scrisoarea-ii.39", "scrisoarea-iii.266"])
        #expect(hits.allSatisfy { $0.snippet.contains("[ştiinţ]") })
        // Exactly what stiint* finds.
        #expect(Set(hits.map(\.passage)) == Set(try store.searchContent("stiint*").map(\.passage)))
    }
}
