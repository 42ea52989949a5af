import Foundation
import Marginalia

/// The audit report of the measured store, as a person makes it: `marginalia report` through the binary, with the
/// annotated edition attached (so that every live annotation's anchor is checked for orphans), against
/// `marginalia verify` of the same store in the same run (the report holds verify's verdict). Targets: the one
/// page in under 3 s and under 20 MB (a larger page is refused, and `--split` writes it as pages), with memory
/// flat (its peak, beside the store's size); `--split` is measured too.
struct ReportBenchmarks {
    let workspace: Workspace
    let report: Report
    let cli: String

    func run(store: String, changes: Int, content: String) throws {
        Log.say("The audit report of \(changes) changes…")
        let page = workspace.run("report.html")
        let pages = workspace.run("report-pages")
        workspace.remove(page)
        // Interleaved, verify first: each pair sees the same machine.
        let verify = try Subprocess.run([cli, "--store", store, "verify"], underTime: true)
        let one = try Subprocess.run([cli, "--store", store, "--content", content, "report", page, "--force"],
                                     underTime: true, accepting: [1])
        // Exit 1 with no page: over 20 MB, refused (`--split` below writes it).
        let written = FileManager.default.fileExists(atPath: page)
        let bytes = written ? workspace.size(page) : 0
        let split = try Subprocess.run([cli, "--store", store, "--content", content, "report", pages, "--split",
                                        "--force"], underTime: true)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: pages)) ?? []
        let splitBytes = names.reduce(0) { $0 + workspace.size("\(pages)/\($1)") }
        let label = Report.grouped(Double(changes))
        report.add(Measurement(
            id: "report.seconds", name: "marginalia report, one page, \(label) changes"
                + (written ? "" : " (refused: over 20 MB)"),
            figure: Quantity(value: one.seconds * 1000, unit: "ms"), seconds: one.seconds,
            referenceName: "marginalia verify", reference: Quantity(value: verify.seconds * 1000, unit: "ms"),
            referenceSeconds: verify.seconds, target: .below(3000)))
        report.add(Measurement(
            id: "report.megabytes", name: "the report, \(label) changes, one page or all pages",
            figure: Quantity(value: Double(written ? bytes : splitBytes) / 1_048_576, unit: "MiB"),
            seconds: nil, target: .below(20_000_000 / 1_048_576)))
        report.add(Measurement(
            id: "report.peakMemory", name: "peak memory, marginalia report, \(label) changes",
            figure: Quantity(value: one.peakMiB, unit: "MiB"), seconds: one.seconds, target: .below(300)))
        report.add(Measurement(
            id: "report.splitSeconds", name: "marginalia report --split, \(names.count) pages",
            figure: Quantity(value: split.seconds * 1000, unit: "ms"), seconds: split.seconds,
            referenceName: "marginalia verify", reference: Quantity(value: verify.seconds * 1000, unit: "ms"),
            referenceSeconds: verify.seconds, target: .below(3000)))
        report.extra("report.pageWritten", written ? 1 : 0)
        report.extra("report.bytes", bytes)
        report.extra("report.split.bytes", splitBytes)
        report.extra("report.split.pages", names.count)
        report.extra("report.split.peakMiB", split.peakMiB)
        report.extra("report.verify.peakMiB", verify.peakMiB)
        workspace.remove(page)
        try? FileManager.default.removeItem(atPath: pages)
    }
}
