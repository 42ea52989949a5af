import Foundation
import Marginalia

/// Importing another tool's notes at scale: Kindle clippings of a book the content holds, each placed by its text,
/// against importing the same number of annotations from one archive.
struct InteropBenchmarks {
    let workspace: Workspace
    let report: Report

    /// `count` clippings, each a line of the sample's passages (so most are placed exactly, a line a poem repeats
    /// by its location), through the `marginalia` binary when there is one beside this one (time and peak memory),
    /// else in this process.
    func kindle(count: Int, source: ContentSource, content: String, using random: inout SeededGenerator) throws {
        Log.say("Importing \(count) Kindle clippings…")
        var lines: [String] = []
        for document in source.documents {
            for passage in document.passages {
                lines += passage.text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                    .filter { $0.count > 15 }
            }
        }
        guard !lines.isEmpty else { throw BenchError("the sample has no line to clip") }
        let clippings = workspace.run("clippings.txt")
        var text = ""
        text.reserveCapacity(count * 160)
        for index in 0..<count {
            text += "\(source.title) (Mihai Eminescu)\r\n- Your Highlight on Location \(index * 3 + 1)-\(index * 3 + 2)"
                + " | Added on Monday, 1 January 2024 10:00:00\r\n\r\n\(random.pick(lines))\r\n==========\r\n"
        }
        try text.write(toFile: clippings, atomically: true, encoding: .utf8)
        let store = workspace.run("clippings.db")
        let archive = workspace.run("clippings.jsonl.gz")
        let imported = workspace.run("clippings-imported.db")
        for path in [store, archive, imported] { workspace.remove(path) }
        let (kindleSeconds, kindleMiB) = try timed(["--content", content, "import", clippings], store: store) {
            let opened = try AnnotationStore.open(path: store, access: .create)
            defer { try? opened.close() }
            try opened.attachContent(path: content)
            _ = try opened.importFile(Array(try Data(contentsOf: URL(fileURLWithPath: clippings))), name: clippings)
        }
        let made = try AnnotationStore.open(path: store, access: .readWrite)
        let annotations = try made.annotations().count
        _ = try made.exportArchive(toFile: archive)
        try made.close()
        guard annotations == count else { throw BenchError("\(count) clippings made \(annotations) annotations") }
        let (archiveSeconds, _) = try timed(["import", archive], store: imported) {
            let opened = try AnnotationStore.open(path: imported, access: .create)
            defer { try? opened.close() }
            _ = try opened.importArchive(path: archive)
        }
        let counted = Report.grouped(Double(count))
        report.add(Measurement(
            id: "interop.kindle", name: "import of \(counted) Kindle clippings of a book in the content",
            figure: Quantity(value: kindleSeconds, unit: "s"), seconds: kindleSeconds,
            referenceName: "importing \(counted) annotations from one archive",
            reference: Quantity(value: archiveSeconds, unit: "s"), referenceSeconds: archiveSeconds,
            target: .below(30)))
        if let kindleMiB {
            report.add(Measurement(
                id: "memory.interop.kindle", name: "peak memory, marginalia import of \(counted) Kindle clippings",
                figure: Quantity(value: kindleMiB, unit: "MiB"), seconds: kindleSeconds, target: .below(64)))
        }
        for path in [store, archive, imported, clippings] { workspace.remove(path) }
    }

    private func timed(_ arguments: [String], store: String, _ body: () throws -> Void) throws -> (Double, Double?) {
        if let cli = workspace.cli {
            try Subprocess.initStore(cli, store)
            let run = try Subprocess.run([cli, "--store", store] + arguments, underTime: true)
            return (run.seconds, run.peakMiB)
        }
        return (try Timing.time(body).1, nil)
    }
}
