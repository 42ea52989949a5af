import Marginalia

/// `report`: the store's history as one HTML page a person can look at, or a directory of pages.
enum ReportCommand {
    static let command = Command(
        spec: CommandSpec(
            name: "report", summary: "Write an audit of the store's history as one HTML page.",
            discussion: """
                One self-contained file, opened in any browser: integrity first (verify's verdict with the hash \
                chain's head, the backup it was checked against, changes held in quarantine), then activity (a \
                timeline of changes per day or week by device, and a row per device with its first and last \
                change and its counts by operation), what came from outside (each import, restore and sync \
                segment with its file, SHA-256 and counts), and every annotation of every document with each of \
                its versions, field by field: old → new, by which device, when; deleted ones say who deleted \
                them, orphaned ones why (with content attached). The page makes no network request, needs no \
                other file and reads the same with JavaScript off; every note, quote, tag and name is shown as \
                text, with control and direction characters as their code points (<U+202E>). One page is at \
                most 20 MB: a larger report is not written (exit 1), and --split writes it as a directory \
                instead, index.html and a page per document. When verification finds a problem, the report is \
                still written, showing it, and the command exits 1, as 'verify' does. TIME is ISO 8601, as for \
                'log'. Reads only.
                """,
            arguments: [.init(name: "FILE", help: "The HTML file to write (a directory with --split).")],
            options: [
                .init(name: "since", value: "TIME", help: "Only changes at or after TIME."),
                .init(name: "until", value: "TIME", help: "Only changes before TIME."),
                .init(name: "as-of", value: "TIME",
                      help: "The store as it was at TIME: later changes left out, texts as they stood."),
                .init(name: "document", value: "D", help: "Only document D's annotations and reading position."),
                .init(name: "device", value: "D",
                      help: "Only changes made by device D: its name, its id or a unique prefix of it."),
                .init(name: "against", value: "BACKUP",
                      help: "Also prove the history up to BACKUP's head unchanged, as 'verify --against'."),
                .init(name: "split", help: "Write a directory: index.html and a page per document."),
                .init(name: "force", help: "Replace an existing file (never a store or database)."),
            ] + Keys.decryptOptions,
            examples: [
                "marginalia report audit.html",
                "marginalia report audit.html --force --since 2026-11-01 --against backup.jsonl.gz",
                "marginalia report audit-pages --split",
            ]),
        run: { context in
            let arguments = context.arguments
            let path = arguments.positionals[0]
            var filter = AuditFilter(document: arguments.value("document"), device: arguments.value("device"))
            filter.since = try HistoryCommands.time(arguments.value("since"), option: "since")
            filter.until = try HistoryCommands.time(arguments.value("until"), option: "until")
            filter.asOf = try HistoryCommands.time(arguments.value("as-of"), option: "as-of")
            if let since = filter.since, let until = filter.until, until <= since {
                throw UsageError("--until must be later than --since")
            }
            let backup = arguments.value("against")
            let key = try backup.map { try Keys.decryption(for: $0, context) } ?? nil
            // Orphans are told from the content; without it, the report goes on and says nothing of anchors.
            let store = try context.openStore(.readOnly, content: .optional)
            let force = arguments.flag("force")
            let (report, files) = arguments.flag("split")
                ? try store.writeAuditReport(filter, against: backup, key: key, toDirectory: path, force: force)
                : try store.writeAuditReport(filter, against: backup, key: key, toFile: path, force: force,
                                             maxBytes: maxPageBytes)
            if context.json {
                try Output.print(.object(JSONObject([
                    ("ok", .bool(report.verification.isHealthy)), ("files", .array(files.paths.map(JSONValue.string))),
                    ("bytes", .int(Int64(files.bytes))), ("documents", .int(Int64(files.documents))),
                    ("changes", .int(Int64(files.changes))),
                ])), to: context.console)
            }
            context.console.err("Wrote \(arguments.flag("split") ? "\(files.paths.count) pages in " : "")\(path): "
                + "\(Output.count(files.changes, "change")) in \(Output.count(files.documents, "document")), "
                + "\(files.bytes) bytes"
                + (report.verification.isHealthy ? "" : "; verification FAILED, as the report shows"))
            // The report shows the damage; the status says it, as verify's does.
            if !report.verification.isHealthy {
                throw VerificationFailed(count: report.verification.problems.count)
            }
        })

    /// The largest one-page report written: a larger page opens slowly, or not at all, in a browser.
    static let maxPageBytes = 20_000_000
}
