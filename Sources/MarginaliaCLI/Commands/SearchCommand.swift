import Marginalia

enum SearchCommand {
    static let command = Command(
        spec: CommandSpec(
            name: "search", summary: "Full-text search of the content (or of your notes), diacritics ignored.",
            discussion: """
                Words typed without diacritics find text with them, and case does not count: 'tara' finds ţara, \
                Țară and țară. All words must match; "a phrase" matches words in order; stiin* matches a prefix; \
                a OR b matches either; -word excludes. Best matches first; each hit shows how many of your \
                annotations start there. When the words as typed match nothing, each plain word of 5 letters or \
                more is looked for again by its stem: the word without its final vowels, as a prefix ('stiinta' \
                finds ştiinţei, ştiinţele and ştiinţ-, as stiint* would), and stderr says so.
                """,
            arguments: [.init(name: "QUERY", help: "What to look for.")],
            options: [
                .init(name: "limit", short: "n", value: "N", help: "At most N results (default 20)."),
                .init(name: "notes", help: "Search your notes and highlighted quotes instead of the content."),
                .init(name: "as-of", value: "TIME",
                      help: "With --notes: the notes as they were at TIME (ISO 8601, as for 'log'), replayed from "
                          + "the log."),
            ],
            examples: [
                "marginalia search stiinta",
                "marginalia search '\"luceafarul de sus\"' --limit 5",
                "marginalia search 'dor*' --json",
                "marginalia search --notes basm",
                "marginalia search --notes basm --as-of 2026-11-29",
            ]),
        run: { context in
            do {
                try run(context)
            } catch let error as SearchError {
                // A query that cannot be read is a usage error: say why, with the usage.
                throw UsageError(error.description)
            }
        })

    private static func run(_ context: Context) throws {
        let query = context.arguments.positionals[0]
        let limit = try context.arguments.integer("limit") ?? 20
        guard limit > 0 else { throw UsageError("--limit must be at least 1") }
        _ = try SearchQuery(query)
        let asOf = try HistoryCommands.time(context.arguments.value("as-of"), option: "as-of")
        if asOf != nil && !context.arguments.flag("notes") {
            throw UsageError("--as-of searches your notes as they were: give --notes too")
        }
        if context.arguments.flag("notes") {
            let store = try context.openStore(.readOnly, content: .none)
            func search(matchingInflections: Bool) throws -> [Annotation] {
                try asOf.map {
                    try store.searchNotes(query, asOf: $0, limit: limit, matchingInflections: matchingInflections)
                } ?? store.searchNotes(query, limit: limit, matchingInflections: matchingInflections)
            }
            var annotations = try search(matchingInflections: false)
            if annotations.isEmpty, let stems = try inflections(of: query, context: context) {
                annotations = try search(matchingInflections: true)
                if !annotations.isEmpty { context.console.err(stems) }
            }
            if context.json {
                try Output.print(.array(annotations.map(\.json)), to: context.console)
            } else {
                let ids = try ShortIDs(store, annotations: annotations.map(\.id))
                annotations.forEach { Output.summary($0, ids: ids).forEach { context.console.out($0) } }
                if annotations.isEmpty { context.console.err("No notes match") }
            }
            return
        }
        let store = try context.openStoreIfPresent(content: .required)
        var hits = try store.searchContent(query, limit: limit)
        if hits.isEmpty, let stems = try inflections(of: query, context: context) {
            hits = try store.searchContent(query, limit: limit, matchingInflections: true)
            if !hits.isEmpty { context.console.err(stems) }
        }
        if context.json {
            try Output.print(.array(hits.map { hit in
                .object(JSONObject([
                    ("passage", .string(hit.passage)), ("document", .string(hit.document)),
                    ("documentTitle", .string(hit.documentTitle)), ("text", .string(hit.text)),
                    ("snippet", .string(hit.snippet)), ("score", .double(hit.score)),
                    ("annotations", .int(Int64(hit.annotationCount))),
                ]))
            }), to: context.console)
        } else {
            for hit in hits {
                let count = hit.annotationCount > 0
                    ? "  (\(hit.annotationCount) annotation\(hit.annotationCount == 1 ? "" : "s"))" : ""
                context.console.out("\(hit.passage.padding(22)) \(hit.snippet)\(count)")
            }
            if hits.isEmpty { context.console.err("No passages match") }
        }
    }

    /// What stderr says when the words as typed matched nothing and their stems are tried instead, or nil when no
    /// word has a stem to try.
    private static func inflections(of query: String, context: Context) throws -> String? {
        let stems = try SearchQuery(query, matchingInflections: true).stems
        guard !stems.isEmpty else { return nil }
        return "Nothing matches the words as typed; showing words that begin with "
            + stems.map { "'\($0)'" }.joined(separator: ", ")
    }
}
