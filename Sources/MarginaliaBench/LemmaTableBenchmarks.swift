import Foundation
import Marginalia

/// What the lemma table (`samples/ro-lemmas.tsv.gz`) adds to a content build, each build with the table and with an
/// empty one in turns, the median of each: on the tiny sample (6 passages) the difference is reading the table (as
/// a stream, only the entries holding a word of the content decoded), which the target judges; on the sample it is
/// also recording the other forms of its lemmas, shown beside.
struct LemmaTableBenchmarks {
    let workspace: Workspace
    let report: Report

    /// Measures the builds, `pairs` times each.
    func run(sample: ContentSource, pairs: Int) throws {
        Log.say("Content build with the lemma table…")
        let table = "\(workspace.packageRoot)/samples/ro-lemmas.tsv.gz"
        let empty = workspace.run("empty-lemmas.tsv.gz")
        // A gzip member of no bytes (RFC 1952: header, an empty fixed-Huffman final block, CRC-32 and size 0).
        let emptyGzip: [UInt8] = [0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 0x03, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        guard FileManager.default.createFile(atPath: empty, contents: Data(emptyGzip)) else {
            throw BenchError("cannot write \(empty)")
        }
        let tiny = try ContentSource(path: "\(workspace.packageRoot)/samples/tiny.json")
        let cases: [(source: ContentSource, id: String, name: String, target: Target?)] = [
            (tiny, "read", "tiny sample", .below(300)), (sample, "cost", "sample", nil),
        ]
        for (source, id, name, target) in cases {
            let output = workspace.run("lemmas-bench.db")
            func build(lemmas: String) throws -> Double {
                try Timing.time { try ContentBuilder.build(source, output: output, force: true, lemmas: lemmas) }.1
            }
            let (with, without) = try Timing.interleaved(pairs: pairs, { try build(lemmas: table) },
                                                          { try build(lemmas: empty) })
            workspace.remove(output)
            let (withTable, withoutTable) = (Timing.percentile(with, 50), Timing.percentile(without, 50))
            report.add(Measurement(
                id: "content.lemmaTable.\(id)", name: "lemma table in a content build, \(name)",
                figure: Quantity(value: (withTable - withoutTable) * 1000, unit: "ms"), seconds: withTable,
                referenceName: "the build with an empty table",
                reference: Quantity(value: withoutTable * 1000, unit: "ms"), referenceSeconds: withoutTable,
                target: target))
        }
        workspace.remove(empty)
    }
}
