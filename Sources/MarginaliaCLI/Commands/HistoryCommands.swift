import Marginalia

/// `history` and `log`: the change log, the audit trail of every annotation.
enum HistoryCommands {
    static let history = Command(
        spec: CommandSpec(
            name: "history", summary: "Every change to one annotation, with the values each replaced.",
            discussion: """
                Changes come in the order this store took them in (for changes made here, the order they were \
                made). Under each, the fields it set: note: «prima» → «a doua». A change merged from another device \
                whose clock is older than the value it met lost that field: the line says which value stayed. \
                'revert ID --to CHANGE' takes the change id shown.
                """,
            arguments: [.init(name: "ID", help: "The annotation's id or a unique prefix (at least 4 characters).")],
            examples: [
                "marginalia history $(marginalia list | awk 'NR == 1 { print $1 }')",
                "marginalia history $(marginalia note luceafarul.3 \"a note\") --json",
            ]),
        run: { context in
            let store = try context.openStore(.readOnly, content: .none)
            let entries = try store.historyEntries(id: context.arguments.positionals[0])
            if context.json {
                // Each change as log --json shows it, with how it arrived, then what it did to each field.
                let changes = entries.map(\.change)
                let receipts = try store.receipts(ofChanges: changes.map(\.changeID))
                let shown = zip(entries, ImportsCommand.json(changes, receipts: receipts))
                try Output.print(.array(shown.map { Output.json($0, change: $1) }), to: context.console)
            } else {
                // A bookmark's note is its title: the kind comes from the create change.
                let kind = entries.lazy.compactMap(\.change.fields.kind).first
                let ids = try ShortIDs(store, changes: entries.map(\.change),
                                       kept: entries.flatMap { $0.fields.compactMap(\.keptBy) })
                entries.forEach { Output.lines($0, kind: kind, ids: ids).forEach { context.console.out($0) } }
            }
        })

    static let log = Command(
        spec: CommandSpec(
            name: "log", summary: "The change log, oldest first.",
            discussion: """
                TIME is ISO 8601: 2026-11-29, 2026-11-29T12:00, 2026-11-29T12:00:00Z. A local time with its offset \
                (2026-11-29T14:00+02:00, +0200 or +02) is that instant; a time without a zone is UTC. Times are \
                printed in UTC (ending in Z), whatever the machine's time zone.
                """,
            options: [
                .init(name: "since", value: "TIME", help: "Changes at or after TIME."),
                .init(name: "until", value: "TIME", help: "Changes before TIME."),
                .init(name: "device", value: "D",
                      help: "Changes made by device D: its name ('device name'), its id, the short id shown, or "
                          + "any unique prefix of it (at least 4 characters)."),
                .init(name: "limit", value: "N", help: "Only the N most recent changes."),
            ],
            examples: ["marginalia log --since 2026-11-01 --limit 20", "marginalia log --json"]),
        run: { context in
            let arguments = context.arguments
            var filter = LogFilter(device: arguments.value("device"), limit: try arguments.integer("limit"))
            filter.since = try time(arguments.value("since"), option: "since")
            filter.until = try time(arguments.value("until"), option: "until")
            let store = try context.openStore(.readOnly, content: .none)
            try printChanges(try store.log(filter), showEntity: true, store: store, context: context)
        })

    /// Milliseconds for an ISO 8601 option value.
    static func time(_ text: String?, option: String) throws -> Int64? {
        guard let text else { return nil }
        guard let milliseconds = Timestamp.parseISO8601(text) else {
            throw UsageError(
                "--\(option) takes an ISO 8601 time such as 2026-11-29, 2026-11-29T12:00:00Z or a local time with "
                    + "its offset, 2026-11-29T14:00+02:00; not '\(text)'")
        }
        return milliseconds
    }

    private static func printChanges(_ changes: [Change], showEntity: Bool, store: AnnotationStore,
                                     context: Context) throws {
        if context.json {
            let receipts = try store.receipts(ofChanges: changes.map(\.changeID))
            try Output.print(.array(ImportsCommand.json(changes, receipts: receipts)), to: context.console)
        } else {
            // Each annotation's kind, so that a bookmark's title is called a title: from its create change when
            // it is listed, else from the store (one read, only when needed).
            var kinds: [String: AnnotationKind] = [:]
            for change in changes where change.entity == .annotation {
                if let kind = change.fields.kind { kinds[change.entityID] = kind }
            }
            let unknown = changes.contains {
                $0.entity == .annotation && $0.fields.note != nil && kinds[$0.entityID] == nil
            }
            if unknown {
                for annotation in try store.annotations(matching: AnnotationFilter(includeDeleted: true)) {
                    kinds[annotation.id] = annotation.kind
                }
            }
            let ids = try ShortIDs(store, changes: changes)
            changes.forEach {
                context.console.out(Output.line($0, showEntity: showEntity, kind: kinds[$0.entityID], ids: ids))
            }
            if changes.isEmpty { context.console.err("No changes") }
        }
    }
}
