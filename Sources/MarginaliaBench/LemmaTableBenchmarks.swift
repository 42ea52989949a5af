import Foundation
import Marginalia

/// What the lemma table (`samples/ro-lemmas.tsv.gz`) adds to a content build: the sample content built with it
/// and without it, in turns, the median of each; the difference is the table's cost (read as a stream, only the
/// entries holding a word of the content decoded, and the forms they add written).
struct LemmaTableBenchmarks {
    let workspace: Workspace
    let report: Report

    /// Measures the build of `source` with and without the bundled table, `pairs` times each.
    func run(source: ContentSource, pairs: Int) throws {
        Log.say("Content build with the lemma table…")
        let table = "\(workspace.packageRoot)/samples/ro-lemmas.tsv.gz"
        let output = workspace.run("lemmas-bench.db")
        func build(lemmas: String?) throws -> Double {
            try Timing.time { try ContentBuilder.build(source, output: output, force: true, lemmas: lemmas) }.1
        }
        let (with, without) = try Timing.interleaved(pairs: pairs, { try build(lemmas: table) },
                                                      { try build(lemmas: nil) })
        workspace.remove(output)
        let (withTable, withoutTable) = (Timing.percentile(with, 50), Timing.percentile(without, 50))
        report.add(Measurement(
            id: "content.lemmaTable.cost", name: "lemma table's cost in a content build, sample",
            figure: Quantity(value: (withTable - withoutTable) * 1000, unit: "ms"), seconds: withTable,
            referenceName: "the build without the table", reference: Quantity(value: withoutTable * 1000, unit: "ms"),
            referenceSeconds: withoutTable, target: .below(300)))
    }
}
