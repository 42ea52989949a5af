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

    /// A new store in `directory` with the sample content built there and attached.
    static func storeWithSample(in directory: TemporaryDirectory) throws -> AnnotationStore {
        let store = try makeStore(directory)
        try store.attachContent(path: try Samples.buildContent("eminescu-2026.1.json", in: directory))
        return store
    }

    @Test func oneRankedPassFindsAndOrdersWhatTheTiersRunOneByOneDo() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.storeWithSample(in: directory)
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

    @Test func notesAreRankedByTheSameTiers() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.storeWithSample(in: directory)
        let seed = TestSeed.printed(for: "SearchRankTests notes")
        var random = SeededGenerator(seed: seed)
        let passages = try store.engine.read { connection in
            try connection.db.fetchAll(sql: "SELECT id, text FROM content.passages ORDER BY rowid") {
                (try $0.string(0), try $0.string(1))
            }
        }
        for _ in 0..<80 {
            let (passage, text) = passages.randomElement(using: &random)!
            let other = passages.randomElement(using: &random)!.1
            try store.createAnnotation(.note, at: AnchorRequest(passage: passage, start: 0, end: 1),
                                       note: "\(text) \(other)")
        }
        // A word that begins with a query's word and is no form of it, so that the prefix tier has a note.
        try store.createAnnotation(.note, at: AnchorRequest(passage: passages[0].0, start: 0, end: 1),
                                   note: "Un codrușor de tei")
        var tiersSeen = Set<Int>()
        for query in ["codru", "codrului", "stele", "noapte OR luna", "dor -luna", "\"a fost\"", "lumea*", "tara"] {
            let found = try store.searchNotes(query, limit: 1000)
            let reference = try store.engine.read { connection -> [String: Placed] in
                let search = connection.search
                let tiers = try SearchQuery(query, forms: { try search.forms(of: $0) }).tiers
                var placed: [String: Placed] = [:]
                for (tier, expression) in tiers.enumerated() {
                    let rows = try connection.db.fetchAll(
                        sql: """
                            SELECT a.id, bm25(notes_fts) FROM notes_fts JOIN annotations a ON a.rowid = notes_fts.rowid
                            WHERE notes_fts MATCH ? AND a.deleted = 0
                            """,
                        arguments: [expression]) { (try $0.string(0), try $0.double(1)) }
                    for (id, score) in rows where placed[id] == nil {
                        placed[id] = Placed(tier: tier, spelled: true, score: score)
                    }
                }
                return placed
            }
            #expect(Set(found.map(\.id)) == Set(reference.keys), "\(query) (seed \(seed))")
            let order = found.compactMap { reference[$0.id] }.map { ($0.tier, $0.score) }
            tiersSeen.formUnion(order.map(\.0))
            for (before, after) in zip(order, order.dropFirst()) {
                #expect(before.0 < after.0 || (before.0 == after.0 && before.1 <= after.1 + 1e-9),
                        "\(query): \(after) after \(before) (seed \(seed))")
            }
        }
        // Notes were found in every tier: as typed, in another form, by prefix.
        #expect(tiersSeen == [0, 1, 2], "seed \(seed)")
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
