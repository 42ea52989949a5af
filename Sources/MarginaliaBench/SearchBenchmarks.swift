import Foundation
import Marginalia

/// Content search: 100 queries typed without diacritics, through the library (every form of each word: the words
/// as typed, their other forms, their prefixes, and the count) and through the FTS5 statement of the words as typed
/// run with the C API, interleaved query by query so that both see the same cache.
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
        let floor = try CFloor.Search(store: store, content: content)
        let expressions = try queries.map { try SearchQuery($0).expression }
        var ours: [Double] = []
        var theirs: [Double] = []
        var hits = 0
        var emptyQueries = 0
        // One warm-up round, unmeasured; then each query through both, alternating which goes first.
        for round in 0...options.searchRounds {
            for (index, query) in queries.enumerated() {
                let libraryFirst = (index + round) % 2 == 0
                var libraryTime = 0.0
                var floorTime = 0.0
                var libraryRows = 0
                var floorRows = 0
                func runLibrary() throws {
                    // Timed: the search a reader gets (as typed, then every form, then prefixes). Checked: its
                    // first tier, the words as typed, finds what the statement finds.
                    let (_, seconds) = try Timing.time { try library.searchPassages(query, limit: limit) }
                    libraryTime = seconds
                    libraryRows = try library.searchContent(query, limit: limit, matchingInflections: false).count
                }
                func runFloor() throws {
                    let (rows, seconds) = try Timing.time {
                        try floor.run(expression: expressions[index], limit: limit)
                    }
                    floorTime = seconds
                    floorRows = rows
                }
                if libraryFirst {
                    try runLibrary()
                    try runFloor()
                } else {
                    try runFloor()
                    try runLibrary()
                }
                guard libraryRows == floorRows else {
                    throw BenchError("'\(query)': the library found \(libraryRows) passages, the C API \(floorRows)")
                }
                guard round > 0 else {
                    hits += libraryRows
                    if libraryRows == 0 { emptyQueries += 1 }
                    continue
                }
                ours.append(libraryTime * 1000)
                theirs.append(floorTime * 1000)
            }
        }
        report.extra("search.\(id).passages", passages)
        report.extra("search.\(id).queriesWithoutHits", emptyQueries)
        report.extra("search.\(id).meanHits", Double(hits) / Double(queries.count))
        for p in [50.0, 95.0] {
            let label = "p\(Int(p))"
            let figure = Timing.percentile(ours, p)
            let reference = Timing.percentile(theirs, p)
            report.add(Measurement(
                id: "search.\(id).\(label)", name: "search \(label), \(name)",
                figure: Quantity(value: figure, unit: "ms"), seconds: figure / 1000,
                referenceName: "same FTS5 statement, C API", reference: Quantity(value: reference, unit: "ms"),
                referenceSeconds: reference / 1000, target: p == 50 ? .timeRatioAtMost(1.3) : nil))
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
