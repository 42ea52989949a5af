import Foundation
import Testing
@testable import Marginalia

/// Every form of a word: the tiers of a query, and recall and precision measured on the bundled Romanian sample
/// against inflection tables written by hand.
@Suite struct SearchInflectionTests {
    @Test func aQueryIsLookedForAsTypedThenInEveryFormThenAsAPrefix() throws {
        let forms: (String) -> [String] = { word in word == "codru" ? ["codri", "codrii", "codru", "codrul"] : [] }
        let query = try SearchQuery("codru \"simtim ca-n vis\" dor* -padurea tara OR noi", forms: forms)
        #expect(query.expression
            == "(\"codru\" AND \"simtim ca-n vis\" AND \"dor\" * AND (\"tara\" OR \"noi\")) NOT \"padurea\"")
        #expect(query.formsExpression == "((\"codru\" OR \"codri\" OR \"codrii\" OR \"codrul\") AND \"simtim ca-n vis\" "
            + "AND \"dor\" * AND (\"tara\" OR \"noi\")) NOT \"padurea\"")
        #expect(query.prefixExpression?.hasPrefix("(((\"codru\" OR \"codri\" OR \"codrii\" OR \"codrul\") OR \"codru\" *)")
            == true)
        #expect(query.tiers.count == 3)
        // Without forms: the words as typed only.
        #expect(try SearchQuery("codru").tiers == ["\"codru\""])
    }

    @Test func theSampleFindsEveryFormExactFormsFirstAndCountsThem() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory)
        try store.attachContent(path: try Samples.buildContent("eminescu-2026.1.json", in: directory))
        // The sample has no word "stiinta": its forms ştiinţei, ştiinţele are found by their stem.
        let science = try store.searchPassages("stiinta", limit: 50)
        #expect(science.formsAvailable)
        #expect(Set(science.hits.map(\.passage)).isSuperset(of: ["scrisoarea-ii.39", "scrisoarea-iii.266"]))
        // Passages with "codru" as typed come before those with its other forms.
        let forest = try store.searchPassages("codru", limit: 1000)
        let exact = try store.searchPassages("codru", limit: 1000, matchingInflections: false)
        #expect(forest.total > exact.total && exact.total > 0)
        #expect(Array(forest.hits.prefix(exact.total)).map(\.passage) == exact.hits.map(\.passage))
        #expect(forest.hits.contains { $0.snippet.lowercased().contains("[codrului]") })
        // Paging: the total stays; pages follow each other.
        let first = try store.searchPassages("codru", limit: 5)
        let second = try store.searchPassages("codru", limit: 5, offset: 5)
        #expect(first.total == forest.total && second.total == forest.total)
        #expect(first.hits.map(\.passage) + second.hits.map(\.passage) == Array(forest.hits.prefix(10)).map(\.passage))
    }

    @Test func theDiacriticsTypedRankTheirSpellingFirst() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: makeSource([("d", [
            ("d.1", "O fată frumoasă la fereastră, fată de împărat"), ("d.2", "Cu fața senină"),
            ("d.3", "Și faţa ei (cedila)"),
        ])]))
        let face = try store.searchPassages("fața", limit: 10, matchingInflections: false).hits.map(\.passage)
        // Folded, "fata" is both: the spelling typed first, in either form of ț; the other after.
        #expect(Set(face.prefix(2)) == ["d.2", "d.3"] && face.last == "d.1")
        let girl = try store.searchPassages("fată", limit: 10).hits.map(\.passage)
        #expect(girl.first == "d.1")
    }

    @Test func contentBuiltByAnEarlierVersionIsSearchedAsTypedAndByPrefix() throws {
        let directory = try TemporaryDirectory()
        let path = try Samples.buildContent("eminescu-2026.1.json", in: directory)
        // What content schema 1 was: no vocabulary.
        let db = try SQLiteDatabase(path: path, mode: .readWrite)
        try db.executeScript(sql: "DROP TABLE vocabulary; PRAGMA user_version = 1;")
        let store = try makeStore(directory)
        try store.attachContent(path: path)
        let page = try store.searchPassages("codru", limit: 1000)
        #expect(!page.formsAvailable)
        let exact = try store.searchPassages("codru", limit: 1000, matchingInflections: false)
        // The words as typed first, then their prefixes (codrul, codrului begin with codru); no other form.
        #expect(Array(page.hits.prefix(exact.total)).map(\.passage) == exact.hits.map(\.passage))
        #expect(page.hits.contains { $0.snippet.lowercased().contains("[codrului]") })
        #expect(!page.hits.contains { $0.snippet.lowercased().contains("[codrii]") })
    }

    /// Lemmas with every inflected form a Romanian grammar gives them (written by hand, not by the stemmer), and
    /// one form of each typed without diacritics as a reader would.
    static let lemmas: [(query: String, forms: [String])] = [
        ("codrului", ["codru", "codrul", "codrului", "codri", "codrii", "codrilor", "codrule"]),
        ("stele", ["stea", "steaua", "stele", "stelele", "stelei", "stelelor"]),
        ("noaptea", ["noapte", "noaptea", "nopți", "nopții", "nopțile", "nopților"]),
        ("ochii", ["ochi", "ochiul", "ochiului", "ochii", "ochilor"]),
        ("visele", ["vis", "visul", "visului", "vise", "visele", "viselor", "visuri", "visurile", "visurilor"]),
        ("inima", ["inimă", "inima", "inimii", "inimi", "inimile", "inimilor"]),
        ("gandurile", ["gând", "gândul", "gândului", "gânduri", "gândurile", "gândurilor"]),
        ("sufletul", ["suflet", "sufletul", "sufletului", "suflete", "sufletele", "sufletelor"]),
        ("lumea", ["lume", "lumea", "lumii", "lumi", "lumile", "lumilor"]),
        ("florile", ["floare", "floarea", "florii", "flori", "florile", "florilor"]),
        ("razele", ["rază", "raza", "razei", "raze", "razele", "razelor"]),
        ("umbra", ["umbră", "umbra", "umbrei", "umbre", "umbrele", "umbrelor"]),
        ("izvoare", ["izvor", "izvorul", "izvorului", "izvoare", "izvoarele", "izvoarelor"]),
        ("valurile", ["val", "valul", "valului", "valuri", "valurile", "valurilor"]),
        ("aripile", ["aripă", "aripa", "aripii", "aripi", "aripile", "aripilor"]),
        ("lacul", ["lac", "lacul", "lacului", "lacuri", "lacurile", "lacurilor"]),
        ("ramuri", ["ramură", "ramura", "ramurii", "ramuri", "ramurile", "ramurilor"]),
        ("frunzele", ["frunză", "frunza", "frunzei", "frunze", "frunzele", "frunzelor"]),
    ]

    @Test func recallAndPrecisionOnTheSampleAgainstInflectionTablesWrittenByHand() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory)
        try store.attachContent(path: try Samples.buildContent("eminescu-2026.1.json", in: directory))
        var passages: [(id: String, words: Set<String>)] = []
        for document in try store.documents() {
            for passage in try store.passages(document: document.id) {
                passages.append((passage.id, Set(Vocabulary.words(of: passage.text).map(Vocabulary.form(of:)))))
            }
        }
        var recalls: [Double] = []
        var precisions: [Double] = []
        var lines: [String] = []
        for lemma in Self.lemmas {
            let forms = Set(lemma.forms.map(Vocabulary.form(of:)))
            let expected = Set(passages.filter { !$0.words.isDisjoint(with: forms) }.map(\.id))
            guard !expected.isEmpty else { continue }
            let found = Set(try store.searchPassages(lemma.query, limit: 5000).hits.map(\.passage))
            let right = Double(found.intersection(expected).count)
            recalls.append(right / Double(expected.count))
            precisions.append(found.isEmpty ? 0 : right / Double(found.count))
            lines.append("\(lemma.query): \(expected.count) expected, \(found.count) found, "
                + String(format: "recall %.2f precision %.2f", recalls.last ?? 0, precisions.last ?? 0))
        }
        let recall = recalls.reduce(0, +) / Double(recalls.count)
        let precision = precisions.reduce(0, +) / Double(precisions.count)
        print("SearchInflectionTests: \(recalls.count) queries; mean recall \(String(format: "%.3f", recall)), mean "
              + "precision \(String(format: "%.3f", precision))\n  " + lines.joined(separator: "\n  "))
        #expect(recalls.count >= 15)
        #expect(recall >= 0.90, "mean recall \(recall)")
        #expect(precision >= 0.80, "mean precision \(precision)")
    }
}
