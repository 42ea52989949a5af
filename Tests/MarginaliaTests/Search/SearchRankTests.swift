import Foundation
import MarginaliaTestSupport
import Testing
@testable import Marginalia

/// The one-pass search (the widest expression sorted by the rank function `marginalia_rank`) against the search
/// it stands for, run tier by tier: each tier's expression on its own, bm25 of that expression, the passages
/// holding the diacritic words typed first within a tier.
@Suite struct SearchRankTests {
    /// A passage as the tiers run one by one place it.
    struct Placed: Equatable {
        var tier: Int
        var spelled: Bool
        var score: Double
    }

    @Test func oneRankedPassFindsAndOrdersWhatTheTiersRunOneByOneDo() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory)
        try store.attachContent(path: try Samples.buildContent("eminescu-2026.1.json", in: directory))
        let seed = TestSeed.printed(for: "SearchRankTests")
        var random = SeededGenerator(seed: seed)
        let words = try store.engine.read { connection in
            try connection.db.fetchAll(sql: "SELECT DISTINCT form FROM content.vocabulary WHERE length(form) >= 3 ORDER BY form") {
                try $0.string(0)
            }
        }
        var queries = ["codru", "codrului", "stea", "fata", "fată", "față", "ţara", "stiinta", "\"luna trece\"", "dor*",
                       "codru OR stele", "noapte -luna", "lumea luna", "să mor", "cînd", "fasie"]
        for index in 0..<60 {
            let word = words.randomElement(using: &random)!
            switch index % 4 {
            case 0: queries.append(word)
            case 1: queries.append("\(word) \(words.randomElement(using: &random)!)")
            case 2: queries.append("\(word) OR \(words.randomElement(using: &random)!)")
            default: queries.append("\(word) -\(words.randomElement(using: &random)!)")
            }
        }
        for query in queries {
            let page = try store.searchPassages(query, limit: 1000)
            let reference = try store.engine.read { try Self.tierByTier(query, on: $0) }
            #expect(page.total == reference.count, "\(query) (seed \(seed))")
            #expect(Set(page.hits.map(\.passage)) == Set(reference.keys), "\(query) (seed \(seed))")
            var previous: Placed?
            for hit in page.hits {
                guard let placed = reference[hit.passage] else { continue }
                #expect(abs(hit.score - placed.score) < 1e-9,
                        "\(query): \(hit.passage) scored \(hit.score), its tier's bm25 is \(placed.score) (seed \(seed))")
                if let previous {
                    let inOrder = (previous.tier, previous.spelled ? 0 : 1, previous.score)
                        <= (placed.tier, placed.spelled ? 0 : 1, placed.score + 1e-9)
                    #expect(inOrder, "\(query): \(hit.passage) \(placed) after \(previous) (seed \(seed))")
                }
                previous = placed
            }
        }
    }

    /// Each passage a query finds, placed by the tiers run one at a time with FTS5's own bm25.
    static func tierByTier(_ text: String, on connection: StoreConnection) throws -> [String: Placed] {
        let search = connection.search
        let query = try SearchQuery(text, forms: { try search.forms(of: $0) })
        let spelled = Search.diacriticWords(of: text)
        var placed: [String: Placed] = [:]
        for (tier, expression) in query.tiers.enumerated() {
            let rows = try connection.db.fetchAll(
                sql: """
                    SELECT p.id, p.text, bm25(passages_fts) FROM content.passages_fts
                    JOIN content.passages p ON p.rowid = passages_fts.rowid
                    WHERE passages_fts MATCH ?
                    """,
                arguments: [expression]) { (try $0.string(0), try $0.string(1), try $0.double(2)) }
            for (id, passageText, score) in rows where placed[id] == nil {
                // As SQLite's lower() lowers: ASCII letters only.
                let lower = String(passageText.unicodeScalars.map {
                    $0.isASCII ? Character($0).lowercased() : String($0)
                }.joined())
                let holds = spelled.allSatisfy { lower.contains($0.comma) || lower.contains($0.cedilla) }
                placed[id] = Placed(tier: tier, spelled: holds, score: score)
            }
        }
        return placed
    }
}
