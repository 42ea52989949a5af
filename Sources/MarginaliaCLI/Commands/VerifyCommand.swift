import Marginalia

enum VerifyCommand {
    static let command = Command(
        spec: CommandSpec(
            name: "verify", summary: "Check the store, or an archive file.",
            discussion: """
                Without FILE: SQLite's integrity check, that the change log is intact and append-only, that its \
                hash chain holds (each change's digest follows from the changes before it; the first row that \
                does not is named by seq and change id), and that replaying it reproduces the current tables \
                exactly. With --against BACKUP, also that the log's history up to the head BACKUP's header \
                carries is unchanged since BACKUP was written: this catches the newest changes removed, or a \
                rewrite whose later digests were all recomputed, which the chain alone cannot. With FILE: that \
                the archive is complete and intact (gzip CRC and length, every record, the trailer) and that its \
                state equals the state rebuilt from its changes; no store is touched, and the archive is only \
                read: the check replays it into a scratch store of about five times its size in the system's \
                temporary directory ($TMPDIR), removed when done. Exits 1 \
                (store) or 65 (archive) on a problem.
                """,
            arguments: [.init(name: "FILE", help: "An archive to check instead of the store.", optional: true)],
            options: [
                .init(name: "against", value: "BACKUP",
                      help: "Also prove the history up to BACKUP's head unchanged (an archive of format 2 on)."),
            ] + Keys.decryptOptions,
            examples: ["marginalia verify", "marginalia verify --against backup.jsonl.gz",
                       "marginalia verify backup.jsonl.gz"]),
        run: { context in
            if let file = context.arguments.positional(0) {
                guard context.arguments.value("against") == nil else {
                    throw UsageError("--against checks the store; it cannot be given with FILE")
                }
                try verifyArchive(file, context: context)
            } else {
                try verifyStore(context)
            }
        })

    private static func verifyArchive(_ path: String, context: Context) throws {
        var limits = ArchiveLimits()
        limits.key = try Keys.decryption(for: path, context)
        let verification = try ArchiveVerifier.verify(path: path, limits: limits)
        let summary = verification.summary
        if context.json {
            try Output.print(.object(JSONObject([
                ("ok", .bool(true)), ("file", .string(path)), ("partial", .bool(summary.header.partial)),
                ("device", .string(summary.header.device)), ("createdAt", .string(summary.header.createdAt)),
                ("changes", .int(Int64(summary.counts.changes))),
                ("annotations", .int(Int64(summary.counts.annotations))),
                ("positions", .int(Int64(summary.counts.positions))),
                ("formatVersion", .int(summary.header.formatVersion)),
                ("head", summary.header.head.map { head in
                    .object(JSONObject([("seq", .int(head.sequence)), ("digest", .string(head.digest))]))
                } ?? .null),
            ])), to: context.console)
        } else {
            context.console.out("ok: \(path) holds " + Output.counts(
                changes: summary.counts.changes, annotations: summary.counts.annotations,
                positions: summary.counts.positions)
                + (summary.header.partial ? " (partial)" : "; its state matches the replay of its changes"))
            context.console.out("written \(summary.header.createdAt) by device \(summary.header.device)")
        }
    }

    private static func verifyStore(_ context: Context) throws {
        let store = try context.openStore(.readOnly, content: .none)
        let report = try context.arguments.value("against").map {
            try store.verify(against: $0, key: try Keys.decryption(for: $0, context))
        } ?? store.verify()
        if context.json {
            try Output.print(.object(JSONObject([
                ("ok", .bool(report.isHealthy)), ("changes", .int(Int64(report.changeCount))),
                ("annotations", .int(Int64(report.annotationCount))), ("positions", .int(Int64(report.positionCount))),
                ("problems", .array(report.problems.map(JSONValue.string))),
                ("head", .object(JSONObject([
                    ("seq", .int(report.head.sequence)), ("digest", .string(report.head.digest)),
                ]))),
                ("chainBreak", report.chainBreak.map { broken in
                    .object(JSONObject([("seq", .int(broken.sequence)), ("changeId", .string(broken.changeID))]))
                } ?? .null),
                ("against", report.against.map { head in
                    .object(JSONObject([("seq", .int(head.sequence)), ("digest", .string(head.digest))]))
                } ?? .null),
            ])), to: context.console)
        } else {
            report.problems.forEach { context.console.out("problem: \($0)") }
            context.console.out(report.isHealthy
                ? "ok: \(Output.count(report.changeCount, "change")) replay\(report.changeCount == 1 ? "s" : "") to "
                    + "\(Output.count(report.annotationCount, "annotation")) and "
                    + Output.count(report.positionCount, "reading position")
                    + "\nhash chain holds: head seq \(report.head.sequence), digest \(report.head.digest)"
                    + (report.against.map { "\nhistory up to seq \($0.sequence) unchanged since the backup" } ?? "")
                : "FAILED: \(Output.count(report.problems.count, "problem"))")
        }
        if !report.isHealthy { throw VerificationFailed(count: report.problems.count) }
    }
}

/// `verify` found problems (exit status 1; they were already printed).
struct VerificationFailed: Error, CustomStringConvertible {
    let count: Int
    var description: String { "verification found \(Output.count(count, "problem"))" }
}
