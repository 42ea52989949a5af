import Marginalia

/// `diff`: what changed in the annotations between two times.
enum DiffCommand {
    static let command = Command(
        spec: CommandSpec(
            name: "diff", summary: "What changed in your annotations between two times, field by field.",
            discussion: """
                Compares the annotations as they were before TIME (--since) with how they were before --until \
                (or now), by the changes' clocks: the effect of the changes 'log --since --until' lists. Each \
                annotation shows what happened (created, deleted, undeleted, moved, edited) and each field's value \
                before and after; one whose changes left it as it was is not listed. TIME is ISO 8601, as for 'log'.
                """,
            options: [
                .init(name: "since", value: "TIME", help: "From TIME on (required)."),
                .init(name: "until", value: "TIME", help: "Up to TIME, not included (default: now)."),
            ],
            examples: [
                "marginalia diff --since 2026-11-01",
                "marginalia diff --since 2026-11-01 --until 2026-11-29T12:00 --json",
            ]),
        run: { context in
            let arguments = context.arguments
            guard let since = try HistoryCommands.time(arguments.value("since"), option: "since") else {
                throw UsageError("give --since TIME: the time to compare from")
            }
            let until = try HistoryCommands.time(arguments.value("until"), option: "until")
            if let until, until <= since {
                throw UsageError("--until must be later than --since")
            }
            let store = try context.openStore(.readOnly, content: .none)
            let diffs = try store.diff(since: since, until: until)
            if context.json {
                try Output.print(.object(JSONObject([
                    ("since", .string(Timestamp.iso8601(milliseconds: since))),
                    ("until", until.map { .string(Timestamp.iso8601(milliseconds: $0)) } ?? .null),
                    ("annotations", .array(diffs.map(Output.json))),
                ])), to: context.console)
            } else {
                let ids = try ShortIDs(store, annotations: diffs.map(\.id))
                diffs.forEach { Output.lines($0, ids: ids).forEach { context.console.out($0) } }
                if diffs.isEmpty { context.console.err("No annotation changed") }
            }
        })
}
