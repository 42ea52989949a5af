import Marginalia

enum SearchCommand {
    static let command = Command(
        spec: CommandSpec(
            name: "search", summary: "Full-text search of the content (or of your notes), diacritics ignored.",
            discussion: """
                Words typed without diacritics find text with them, and case does not count: 'tara' finds ţara, \
                Țară and țară. All words must match; "a phrase" matches words in order; stiin* matches a prefix; \
                a OR b matches either; -word excludes. A word is found in every form: the passages holding it as \
                typed come first, then those holding another form of it (codru finds codrul, codrului, codrii; \
                stea finds stele, stelei, steaua: the forms the content build recorded with Snowball's Romanian \
                stemmer), then those holding a word it begins (4 letters or more); best matches first within \
                each. Each hit shows how many of your annotations start there; the count says how many passages \
                there are ('20 of 93 passages'), and --limit and --offset page through them. --notes searches \
                your notes and quotes the same way, counted and paged alike ('1–20 of 41 annotations'); its \
                --json has the same shape: total, offset and hits. A content built by \
                an earlier version has no word forms: the words as typed and their prefixes are looked for, and \
                stderr says that 'marginalia content build' adds the forms.
                """,
            arguments: [.init(name: "QUERY", help: "What to look for.")],
            options: [
                .init(name: "limit", short: "n", value: "N", help: "At most N results (default 20)."),
                .init(name: "offset", value: "N", help: "Skip the first N results (with --limit, a page)."),
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

    /// The most notes `search --notes` reads, to count them all.
    static let allNotes = 1_000_000

    private static func run(_ context: Context) throws {
        let query = context.arguments.positionals[0]
        let limit = try context.arguments.integer("limit") ?? 20
        guard limit > 0 else { throw UsageError("--limit must be at least 1") }
        let offset = try context.arguments.integer("offset") ?? 0
        guard offset >= 0 else { throw UsageError("--offset must be 0 or more") }
        _ = try SearchQuery(query)
        let asOf = try HistoryCommands.time(context.arguments.value("as-of"), option: "as-of")
        if asOf != nil && !context.arguments.flag("notes") {
            throw UsageError("--as-of searches your notes as they were: give --notes too")
        }
        if context.arguments.flag("notes") {
            let store = try context.openStore(.readOnly, content: .optional)
            // Every match, to count them: a person's notes are thousands at most.
            let found = try asOf.map { try store.searchNotes(query, asOf: $0, limit: Self.allNotes) }
                ?? store.searchNotes(query, limit: Self.allNotes)
            let annotations = Array(found.dropFirst(offset).prefix(limit))
            if context.json {
                try Output.print(.object(JSONObject([
                    ("total", .int(Int64(found.count))), ("offset", .int(Int64(offset))),
                    ("hits", .array(annotations.map(\.json))),
                ])), to: context.console)
            } else {
                let ids = try ShortIDs(store, annotations: annotations.map(\.id))
                annotations.forEach { Output.summary($0, ids: ids).forEach { context.console.out($0) } }
                if found.isEmpty {
                    context.console.err("No notes match")
                } else {
                    let shown = annotations.isEmpty ? "none" : "\(offset + 1)–\(offset + annotations.count)"
                    context.console.err("\(shown) of \(Output.count(found.count, "annotation"))"
                        + (offset + annotations.count < found.count
                            ? "; --offset \(offset + annotations.count) shows more" : ""))
                }
            }
            return
        }
        let store = try context.openStoreIfPresent(content: .required)
        let page = try store.searchPassages(query, limit: limit, offset: offset)
        if !page.formsAvailable {
            context.console.err("This content records no word forms (built by an earlier version): only the words "
                + "as typed and their prefixes are looked for; 'marginalia content build' adds the forms.")
        }
        if context.json {
            try Output.print(.object(JSONObject([
                ("total", .int(Int64(page.total))), ("offset", .int(Int64(offset))),
                ("hits", .array(page.hits.map { hit in
                    .object(JSONObject([
                        ("passage", .string(hit.passage)), ("document", .string(hit.document)),
                        ("documentTitle", .string(hit.documentTitle)), ("text", .string(hit.text)),
                        ("snippet", .string(hit.snippet)), ("score", .double(hit.score)),
                        ("annotations", .int(Int64(hit.annotationCount))),
                    ]))
                })),
            ])), to: context.console)
            return
        }
        for hit in page.hits {
            let count = hit.annotationCount > 0
                ? "  (\(hit.annotationCount) annotation\(hit.annotationCount == 1 ? "" : "s"))" : ""
            context.console.out("\(hit.passage.padding(22)) \(hit.snippet)\(count)")
        }
        if page.total == 0 {
            context.console.err("No passages match")
        } else {
            let shown = page.hits.isEmpty ? "none" : "\(offset + 1)–\(offset + page.hits.count)"
            context.console.err("\(shown) of \(Output.count(page.total, "passage"))"
                + (offset + page.hits.count < page.total ? "; --offset \(offset + page.hits.count) shows more" : ""))
        }
    }
}
