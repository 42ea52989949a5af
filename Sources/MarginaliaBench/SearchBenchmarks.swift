import Foundation
import Marginalia

/// Content search: 100 queries typed without diacritics, through the library (every form of each word: the words
/// as typed, their other forms, their prefixes, and the count), against two references run with the C API, query
/// by query in turn so that all see the same cache: the statements the library runs for that search (the forms of
/// each word, the page sorted by the rank function, the count), which the target judges, and the plain FTS5
/// statement of the words as typed, which shows what finding every form costs.
struct SearchBenchmarks {
    let options: BenchOptions
    let report: Report
    let store: String
    let queries: [String]
    let limit = 20

    /// Measures p50 and p95 on one content; `name` labels it, `passages` sizes it.
    func run(content: String, name: String, id: String, passages: Int, underOneMillisecond: Bool) throws {
        Log.say("Search over \(name)…")
        let library = try AnnotationStore.open(path: store, access: .readOnly)
        try library.attachContent(path: content)
        let asTyped = try CFloor.Search(store: store, content: content)
        let reader = try CFloor.ReaderSearch(store: store, content: content)
        let expressions = try queries.map { try SearchQuery($0).expression }
        let readerQueries = try queries.map { try reader.query($0) }
        var ours: [Double] = []
        var theirs: [Double] = []
        var typed: [Double] = []
        var hits = 0
        var emptyQueries = 0
        // One warm-up round, unmeasured; then each query through all three, in turn first.
        for round in 0...options.searchRounds {
            for (index, query) in queries.enumerated() {
                var seconds = [0.0, 0.0, 0.0]
                var rows = [0, 0, 0]
                var firstTierRows = 0
                let runs: [() throws -> Void] = [
                    {
                        // Timed: the search a reader gets. Checked: its first tier, the words as typed, finds
                        // what the statement of the words as typed finds.
                        let (page, time) = try Timing.time { try library.searchPassages(query, limit: limit) }
                        (rows[0], seconds[0]) = (page.hits.count, time)
                        firstTierRows = try library.searchContent(query, limit: limit, matchingInflections: false).count
                    },
                    { (rows[1], seconds[1]) = try Timing.time { try reader.run(readerQueries[index], limit: limit) } },
                    {
                        (rows[2], seconds[2]) = try Timing.time {
                            try asTyped.run(expression: expressions[index], limit: limit)
                        }
                    },
                ]
                for turn in 0..<3 { try runs[(index + round + turn) % 3]() }
                guard firstTierRows == rows[2], rows[0] == rows[1] else {
                    throw BenchError("'\(query)': the library found \(rows[0]) passages (\(firstTierRows) as typed), "
                        + "the C API \(rows[1]) (\(rows[2]) as typed)")
                }
                guard round > 0 else {
                    hits += rows[0]
                    if rows[0] == 0 { emptyQueries += 1 }
                    continue
                }
                ours.append(seconds[0] * 1000)
                theirs.append(seconds[1] * 1000)
                typed.append(seconds[2] * 1000)
            }
        }
        report.extra("search.\(id).passages", passages)
        report.extra("search.\(id).queriesWithoutHits", emptyQueries)
        report.extra("search.\(id).meanHits", Double(hits) / Double(queries.count))
        for p in [50.0, 95.0] {
            let label = "p\(Int(p))"
            let figure = Timing.percentile(ours, p)
            report.add(Measurement(
                id: "search.\(id).\(label)", name: "search \(label), \(name)",
                figure: Quantity(value: figure, unit: "ms"), seconds: figure / 1000,
                referenceName: "same statements, C API", reference: Quantity(value: Timing.percentile(theirs, p), unit: "ms"),
                referenceSeconds: Timing.percentile(theirs, p) / 1000, target: p == 50 ? .timeRatioAtMost(1.3) : nil))
            report.add(Measurement(
                id: "search.\(id).\(label)AsTyped", name: "search \(label), \(name)",
                figure: Quantity(value: figure, unit: "ms"), seconds: figure / 1000,
                referenceName: "words as typed only, C API", reference: Quantity(value: Timing.percentile(typed, p), unit: "ms"),
                referenceSeconds: Timing.percentile(typed, p) / 1000, target: nil))
        }
        if underOneMillisecond {
            let p50 = Timing.percentile(ours, 50)
            report.add(Measurement(
                id: "search.\(id).p50Absolute", name: "search p50, \(name)", figure: Quantity(value: p50, unit: "ms"),
                seconds: p50 / 1000, target: .below(1),
                unjudged: passages < 100_000 ? "not judged: \(passages) passages" : nil))
        }
    }
}
