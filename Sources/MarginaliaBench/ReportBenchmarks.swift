import Foundation
import Marginalia

/// The audit report of the measured store, as a person makes it: `marginalia report` through the binary, with the
/// annotated edition attached (so that every live annotation's anchor is checked for orphans). Targets: the one
/// page in under 3 s and under 20 MB, with memory flat (its peak, beside the store's size); `--split` is measured
/// too.
struct ReportBenchmarks {
    let workspace: Workspace
    let report: Report
    let cli: String

    func run(store: String, changes: Int, content: String) throws {
        Log.say("The audit report of \(changes) changes…")
        let page = workspace.run("report.html")
        let pages = workspace.run("report-pages")
        workspace.remove(page)
        let one = try Subprocess.run([cli, "--store", store, "--content", content, "report", page, "--force"],
                                     underTime: true)
        let bytes = workspace.size(page)
        let split = try Subprocess.run([cli, "--store", store, "--content", content, "report", pages, "--split",
                                        "--force"], underTime: true)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: pages)) ?? []
        let splitBytes = names.reduce(0) { $0 + workspace.size("\(pages)/\($1)") }
        let label = Report.grouped(Double(changes))
        report.add(Measurement(
            id: "report.seconds", name: "marginalia report, one page, \(label) changes",
            figure: Quantity(value: one.seconds * 1000, unit: "ms"), seconds: one.seconds, target: .below(3000)))
        report.add(Measurement(
            id: "report.megabytes", name: "the report's one page, \(label) changes",
            figure: Quantity(value: Double(bytes) / 1_048_576, unit: "MiB"), seconds: nil,
            target: .below(20_000_000 / 1_048_576)))
        report.add(Measurement(
            id: "report.peakMemory", name: "peak memory, marginalia report, \(label) changes",
            figure: Quantity(value: one.peakMiB, unit: "MiB"), seconds: one.seconds, target: .below(300)))
        report.add(Measurement(
            id: "report.splitSeconds", name: "marginalia report --split, \(names.count) pages",
            figure: Quantity(value: split.seconds * 1000, unit: "ms"), seconds: split.seconds, target: .below(3000)))
        report.extra("report.bytes", bytes)
        report.extra("report.split.bytes", splitBytes)
        report.extra("report.split.pages", names.count)
        report.extra("report.split.peakMiB", split.peakMiB)
        workspace.remove(page)
        try? FileManager.default.removeItem(atPath: pages)
    }
}
