import Foundation
import Marginalia

/// `marginalia export` as a process against `sqlite3 -json | gzip -6`, and import against its C floor.
extension ArchiveBenchmarks {
    /// `marginalia --store S export FILE --force`, timed from spawn to exit, against `pipeline` on the same store:
    /// the two interleaved run by run, alternating which goes first, after one unmeasured pair, so that both see
    /// the same load and the same cache; the medians are compared, and ours against the in-process export's
    /// `inProcessSeconds` measured before. The process's archive is checked to hold the library's records
    /// (`libraryRaw`, uncompressed).
    func cliExport(pipeline: String, inProcessSeconds: Double, throughput: (Double) -> Quantity,
                   libraryRaw: String) throws {
        guard let cli = workspace.cli else {
            report.note("no marginalia binary beside this one: marginalia export as a process not measured")
            return
        }
        Log.say("marginalia export (a process)…")
        let output = workspace.run("cli-export.jsonl.gz")
        workspace.remove(output)
        let arguments = [cli, "--store", store, "export", output, "--force"]
        let (processes, pipelines) = try Timing.interleaved(
            pairs: options.maxRepeats, { try Subprocess.run(arguments).seconds },
            { try Subprocess.shell(pipeline).seconds })
        let seconds = Timing.percentile(processes, 50)
        let pipelineSeconds = Timing.percentile(pipelines, 50)
        report.extra("cliExport.runs.seconds", processes)
        report.extra("cliExport.sqlite3Runs.seconds", pipelines)
        let name = "marginalia export FILE (a process)"
        report.add(Measurement(
            id: "cliExport.vsSqlite3Gzip", name: name, figure: throughput(seconds), seconds: seconds,
            referenceName: "sqlite3 -json | gzip -6, interleaved", reference: throughput(pipelineSeconds),
            referenceSeconds: pipelineSeconds, target: .timeRatioAtMost(1.0)))
        report.add(Measurement(
            id: "cliExport.vsInProcess", name: name, figure: throughput(seconds), seconds: seconds,
            referenceName: "in-process export to a plain file (above)", reference: throughput(inProcessSeconds),
            referenceSeconds: inProcessSeconds))

        let raw = workspace.run("cli-export.jsonl")
        try Subprocess.shell("gzip -dc \(Subprocess.quote(output)) > \(Subprocess.quote(raw))")
        let same = try Self.sameRecords(libraryRaw, raw)
        report.extra("cliExport.sameRecordsAsLibrary", same)
        if !same { report.note("marginalia export wrote other records than the library's export of the same store") }
        workspace.remove(raw)
        workspace.remove(output)
    }

    /// The import into an empty store (`importSeconds`, the store it made at `imported`) against the same rows
    /// written through the C API in key order in one transaction (`CFloor.copyImport`); the floor's median of the
    /// same number of runs as the import's.
    func importFloor(imported: String, importSeconds: Double, rate: (Double) -> Quantity) throws {
        Log.say("Import's C floor…")
        let path = workspace.run("import-floor.db")
        var times: [Double] = []
        var rows: [(table: String, count: Int)] = []
        for _ in 0..<options.maxRepeats {
            workspace.remove(path)
            let floor = try CFloor.copyImport(from: imported, into: path)
            times.append(floor.seconds)
            rows = floor.rows
        }
        workspace.remove(path)
        let seconds = Timing.percentile(times, 50)
        report.extra("importFloor.seconds", seconds)
        for row in rows { report.extra("importFloor.rows.\(row.table)", row.count) }
        report.add(Measurement(
            id: "import.vsCFloor", name: "import into an empty store", figure: rate(importSeconds),
            seconds: importSeconds, referenceName: "its rows, C API, key order, one transaction",
            reference: rate(seconds), referenceSeconds: seconds, target: .timeRatioAtMost(1.3)))
    }
}
