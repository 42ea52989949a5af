import Marginalia

enum ContentCommands {
    static let build = Command(
        spec: CommandSpec(
            name: "content build", summary: "Build a content database from a content source (JSON).",
            discussion: """
                The source is {"edition", "language", "title", "documents": [{"id", "title", "passages": [{"id", \
                "text"}]}]} (schemas/content-source.schema.json). Ids must be unique and non-empty; texts are \
                NFC-normalized. An existing FILE is replaced only with --force, and only when the build succeeds; a \
                store or any other database is never replaced. A symbolic link is written through.
                """,
            arguments: [.init(name: "SOURCE", help: "The content source, a JSON file.")],
            options: [.init(name: "output", short: "o", value: "FILE",
                            help: "Where to write the content database (required)."),
                      .init(name: "force", help: "Replace an existing content database or file at FILE."),
                      .init(name: "lemmas", value: "TABLE",
                            help: "A lemma table the word forms are recorded with (default for Romanian: the "
                                + "bundled samples/ro-lemmas.tsv.gz, from the Romanian Hunspell dictionary and "
                                + "simplemma's lexicon).")],
            examples: ["marginalia content build samples/eminescu-2026.2.json --output poezii-2.db"]),
        run: { context in
            guard let output = context.arguments.value("output") else {
                throw UsageError("missing --output FILE")
            }
            let sourcePath = context.arguments.positionals[0]
            let source = try ContentSource(path: sourcePath)
            let progress = ProgressLine(console: context.console)
            defer { progress.finish() }
            let lemmas = context.arguments.value("lemmas")
                ?? (try? BundledContent.lemmaTable(language: source.language)) ?? nil
            let info = try ContentBuilder.build(source, output: output, force: context.arguments.flag("force"),
                                                protecting: context.storePath, lemmas: lemmas,
                                                progress: progress.handler)
            if context.json {
                try Output.print(infoJSON(info), to: context.console)
            } else {
                context.console.out("Built \(output): edition \(info.edition), \(info.documentCount) documents, "
                    + "\(info.passageCount) passages")
            }
        })

    static let info = Command(
        spec: CommandSpec(
            name: "content info", summary: "Show the attached content's edition and size.",
            discussion: "Also says whether the store's annotations were last checked against another edition.",
            examples: ["marginalia content info", "marginalia --content poezii-2.db content info --json"]),
        run: { context in
            let store = try context.openStoreIfPresent(content: .required)
            guard let info = store.content else { throw ToolError("no content attached") }
            let reconciled = try store.reconciledContent()
            if context.json {
                guard case .object(var object) = infoJSON(info) else { return }
                object["reconciledEdition"] = reconciled.map { JSONValue.string($0.edition) } ?? .null
                object["reconciledPath"] = reconciled?.path.map(JSONValue.string) ?? .null
                try Output.print(.object(object), to: context.console)
            } else {
                context.console.out("""
                    path:      \(info.path)
                    edition:   \(info.edition)
                    title:     \(info.title)
                    language:  \(info.language)
                    documents: \(info.documentCount)
                    passages:  \(info.passageCount)
                    """)
                if let reconciled {
                    context.console.out("annotations last reconciled with edition \(reconciled.edition)"
                        + (reconciled.path.map { " (\($0))" } ?? " (bundled sample)"))
                }
            }
        })

    static func infoJSON(_ info: ContentInfo) -> JSONValue {
        .object(JSONObject([
            ("path", .string(info.path)), ("edition", .string(info.edition)), ("title", .string(info.title)),
            ("language", .string(info.language)), ("documents", .int(Int64(info.documentCount))),
            ("passages", .int(Int64(info.passageCount))),
        ]))
    }
}
