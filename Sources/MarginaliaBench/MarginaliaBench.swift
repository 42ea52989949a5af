import Foundation
import Marginalia

/// `marginalia-bench`: builds a realistic store on the sample content and measures every main operation
/// against its reference, measured in the same run. Prints a table on stdout; progress goes to stderr.
///
///     swift run -c release marginalia-bench                      # N = 100,000
///     swift run -c release marginalia-bench --quick              # under a minute
///     swift run -c release marginalia-bench --memory --workdir /var/tmp/mb --json results.json
@main
enum MarginaliaBench {
    static func main() {
        let options: BenchOptions
        do {
            guard let parsed = try BenchOptions.parse(Array(CommandLine.arguments.dropFirst())) else {
                print(BenchOptions.help)
                exit(0)
            }
            options = parsed
        } catch {
            Log.say("Error: \(error)\n\(BenchOptions.usage)\nSee 'marginalia-bench --help'")
            exit(64)
        }
        do {
            try run(options)
        } catch {
            Log.say("Error: \(error)")
            exit(1)
        }
    }

    static func run(_ options: BenchOptions) throws {
        let started = Timing.now()
        let loadAtStart = Machine.load()
        for tool in ["sqlite3", "gzip", "bash", options.python] where !Subprocess.available(tool) {
            throw BenchError("\(tool) is needed for the reference measurements and is not on PATH")
        }
        let workspace = try Workspace(options: options)
        let report = Report()
        #if DEBUG
        report.note("a debug build: the figures mean nothing; measure with swift run -c release marginalia-bench")
        #endif
        if options.quick { report.note("a quick run: a small store and single runs; the figures are indicative only") }

        Log.say("Contents…")
        let cached = options.workdir != nil
        let source = try ContentSource(path: workspace.sampleEdition1)
        let text = try RomanianText(source: source)
        let maker = try AnnotationMaker(source: source, text: text)
        let edition1 = try workspace.content(source, name: "eminescu-2026.1.db", cached: cached)
        let edition2 = try workspace.content(try ContentSource(path: workspace.sampleEdition2),
                                             name: "eminescu-2026.2.db", cached: cached)
        var contentRandom = SeededGenerator(seed: options.seed &+ 1)
        let syntheticName = "synthetic-\(options.syntheticPassages)-seed\(options.seed).db"
        let syntheticWasCached = cached && workspace.exists(workspace.cache(syntheticName))
        let (synthetic, syntheticSeconds) = try Timing.time {
            try workspace.content(text.syntheticSource(passages: options.syntheticPassages, using: &contentRandom),
                                  name: syntheticName, cached: cached)
        }
        if !syntheticWasCached { report.extra("content.synthetic.buildSeconds", syntheticSeconds) }

        var random = SeededGenerator(seed: options.seed)
        let builder = StoreBuilder(workspace: workspace, maker: maker, content: edition1)
        let built = try builder.build(annotations: options.annotations, using: &random)
        let changes = try describeStore(built.store, report: report)

        let writes = WriteBenchmarks(workspace: workspace, report: report)
        if options.runs(.writes) {
            try writes.batchCreate(built)
            try writes.singleTransactions(options.singleTransactions, maker: maker, content: edition1,
                                          using: &random)
        }

        if options.runs(.archives) || options.runs(.timeline) {
            let archives = ArchiveBenchmarks(workspace: workspace, options: options, report: report,
                                             store: built.store)
            let archive = try archives.export()
            if options.runs(.archives) {
                try archives.importAndReimport(archive: archive.path, uncompressedBytes: archive.uncompressedBytes,
                                               changes: changes)
                try archives.merge(built)
            }
            if options.runs(.timeline) {
                try TimelineBenchmarks(workspace: workspace, report: report).run(archive: archive.path,
                                                                                content: edition1)
            }
        }

        if options.runs(.sync) {
            var syncRandom = SeededGenerator(seed: options.seed &+ 3)
            let sync = SyncBenchmarks(workspace: workspace, options: options, report: report)
            try sync.run(store: built.store, annotations: options.annotations, maker: maker, content: edition1,
                         using: &syncRandom)
            try sync.lateJoiner(changes: options.lateJoinerChanges ?? (options.quick ? 4_000 : 100_000),
                                maker: maker, content: edition1, using: &syncRandom)
        }

        if options.runs(.interop) {
            var clippingRandom = SeededGenerator(seed: options.seed &+ 4)
            try InteropBenchmarks(workspace: workspace, report: report)
                .kindle(count: options.quick ? 5_000 : 100_000, source: source, content: edition1,
                        using: &clippingRandom)
        }

        if options.runs(.search) {
            try LemmaTableBenchmarks(workspace: workspace, report: report).run(sample: source,
                                                                               pairs: options.quick ? 2 : 5)
            var queryRandom = SeededGenerator(seed: options.seed &+ 2)
            let search = SearchBenchmarks(options: options, report: report, store: built.store,
                                          queries: text.queries(100, using: &queryRandom))
            try search.run(content: edition1, name: "sample", id: "sample", passages: text.lines.count,
                           underOneMillisecond: false)
            try search.run(content: synthetic, name: "\(Report.grouped(Double(options.syntheticPassages))) passages",
                           id: "synthetic", passages: options.syntheticPassages, underOneMillisecond: true)
        }

        if options.runs(.report) {
            if let cli = workspace.cli {
                try ReportBenchmarks(workspace: workspace, report: report, cli: cli)
                    .run(store: built.store, changes: changes, content: edition1)
            } else {
                report.note("no marginalia binary beside this one: the report not measured")
            }
        }

        if options.runs(.reconcile) { try writes.reconcile(store: built.store, edition2: edition2) }

        if options.runs(.memory) {
            if let cli = workspace.cli {
                let memory = MemoryBenchmarks(workspace: workspace, report: report, cli: cli)
                try memory.measure(store: built.store, annotations: options.annotations, label: "N")
                if options.memory {
                    let large = try memory.largeStore(from: built.store, annotations: options.memoryAnnotations,
                                                      seed: options.seed)
                    try memory.storeSize(large)
                    try memory.measure(store: large.path, annotations: large.annotations, label: "large",
                                       sizeAgainstExport: true)
                } else {
                    report.note("peak memory at \(Report.grouped(Double(options.memoryAnnotations))) annotations: "
                        + "run with --memory")
                }
            } else {
                report.note("no marginalia binary beside this one: peak memory not measured")
            }
        }

        report.extra("run.seconds", Timing.now() - started)
        report.extra("run.loadAverageAtStart", loadAtStart)
        report.extra("run.loadAverageAtEnd", Machine.load())
        if max(loadAtStart, Machine.load()) > Double(ProcessInfo.processInfo.activeProcessorCount) {
            report.note(String(format: "the machine was busy (load average %.1f at the start, %.1f at the end): "
                + "other work skews these figures", loadAtStart, Machine.load()))
        }
        print(report.table())
        for note in report.notes { print("Note: \(note)") }
        if let path = options.jsonPath {
            let command = (["marginalia-bench"] + CommandLine.arguments.dropFirst()).joined(separator: " ")
            try report.json(options: options, machine: Machine.describe(), command: command)
                .write(to: URL(fileURLWithPath: path))
            Log.say("Wrote every figure to \(path)")
        }
        Log.say(String(format: "Done in %.0f s", Timing.now() - started))
    }

    /// Records what the measured store holds; returns its number of changes.
    private static func describeStore(_ path: String, report: Report) throws -> Int {
        let db = try SQLiteDatabase(path: path, mode: .readOnly)
        let changes = Int(try db.int(sql: "SELECT count(*) FROM changes") ?? 0)
        let figures: [(String, String)] = [
            ("store.annotations", "SELECT count(*) FROM annotations"),
            ("store.deleted", "SELECT count(*) FROM annotations WHERE deleted = 1"),
            ("store.highlights", "SELECT count(*) FROM annotations WHERE kind = 'highlight'"),
            ("store.notes", "SELECT count(*) FROM annotations WHERE kind = 'note'"),
            ("store.bookmarks", "SELECT count(*) FROM annotations WHERE kind = 'bookmark'"),
            ("store.devices", "SELECT count(DISTINCT device) FROM changes"),
            ("store.positions", "SELECT count(*) FROM positions"),
            ("store.meanNoteCharacters",
             "SELECT CAST(avg(length(note)) AS INTEGER) FROM annotations WHERE note IS NOT NULL"),
            ("store.maxNoteCharacters", "SELECT max(length(note)) FROM annotations"),
        ]
        report.extra("store.changes", changes)
        var summary: [String] = ["\(changes) changes"]
        for (key, sql) in figures {
            let value = Int(try db.int(sql: sql) ?? 0)
            report.extra(key, value)
            summary.append("\(key.dropFirst(6)) \(value)")
        }
        let bytes = try db.int(sql: "SELECT page_count * page_size FROM pragma_page_count, pragma_page_size")
        report.extra("store.bytes", bytes ?? 0)
        Log.say("The store: " + summary.joined(separator: ", "))
        return changes
    }
}
