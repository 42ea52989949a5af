import Marginalia

/// `highlight`, `note` and `bookmark`: making annotations.
enum AnnotateCommands {
    private static let rangeArgument = CommandSpec.Argument(
        name: "PASSAGE[:START-END]",
        help: "A passage id, optionally with a range of characters (code points, END exclusive). Without a range "
            + "the whole passage.")
    private static let quoteOption = CommandSpec.Option(
        name: "quote", value: "TEXT", help: "Find TEXT in the passage instead of counting offsets; it must occur once.")
    private static let tagOption = CommandSpec.Option(name: "tag", value: "T", help: "Add a tag.", repeatable: true)
    private static let noteFileOption = CommandSpec.Option(
        name: "note-file", value: "FILE", help: "Take the note from FILE (UTF-8; one final line feed dropped).")

    static let highlight = Command(
        spec: CommandSpec(
            name: "highlight", summary: "Highlight a range of text; prints the new annotation's id.",
            arguments: [rangeArgument],
            options: [
                quoteOption,
                .init(name: "to", value: "PASSAGE[:END]",
                      help: "End the range in a later passage of the same document."),
                .init(name: "color", value: "C", help: "A color name, e.g. yellow."),
                .init(name: "note", value: "TEXT", help: "A note on the highlight; '-' reads it from standard input."),
                noteFileOption,
                tagOption,
            ],
            examples: [
                "marginalia highlight luceafarul.1:0-8 --color yellow",
                "marginalia highlight luceafarul.4 --quote \"fată\" --tag eroina",
                "marginalia highlight luceafarul.1 --to luceafarul.4 --note \"the opening\"",
            ]),
        run: { context in
            let request = try AnchorSyntax.request(context.arguments.positionals[0], arguments: context.arguments)
            let note = try StandardInput.text(
                context.arguments.value("note"), file: context.arguments.value("note-file"), what: "--note",
                fileOption: "note-file", console: context.console)
            let store = try context.openStore(.create, content: .required)
            let annotation = try store.createAnnotation(
                .highlight, at: request, note: note, color: context.arguments.value("color"),
                tags: context.arguments.all("tag"))
            try report(annotation, context: context)
        })

    static let note = Command(
        spec: CommandSpec(
            name: "note", summary: "Write a note on a range of text; prints the new annotation's id.",
            arguments: [rangeArgument,
                        .init(name: "TEXT", help: "The note; '-' reads it from standard input (or give --note-file).",
                              optional: true)],
            options: [quoteOption, noteFileOption, tagOption],
            examples: [
                "marginalia note luceafarul.2 \"Ea, una la părinți\"",
                "marginalia note luceafarul.1 --quote odată \"once upon a time\" --tag basm",
            ]),
        run: { context in
            let request = try AnchorSyntax.request(context.arguments.positionals[0], arguments: context.arguments)
            guard let text = try StandardInput.text(
                context.arguments.positional(1), file: context.arguments.value("note-file"), what: "TEXT",
                fileOption: "note-file", console: context.console)
            else { throw UsageError("missing TEXT (or --note-file FILE)") }
            guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw UsageError("the note is empty")
            }
            let store = try context.openStore(.create, content: .required)
            let annotation = try store.createAnnotation(
                .note, at: request, note: text, tags: context.arguments.all("tag"))
            try report(annotation, context: context)
        })

    static let bookmark = Command(
        spec: CommandSpec(
            name: "bookmark", summary: "Bookmark a passage; prints the new annotation's id.",
            arguments: [.init(name: "PASSAGE", help: "The passage id.")],
            options: [
                .init(name: "title", value: "TEXT",
                      help: "A title for the bookmark; '-' reads it from standard input."),
                .init(name: "title-file", value: "FILE",
                      help: "Take the title from FILE (UTF-8; one final line feed dropped)."),
            ],
            examples: ["marginalia bookmark scrisoarea-i.12 --title \"Unde-am rămas\""]),
        run: { context in
            let title = try StandardInput.text(
                context.arguments.value("title"), file: context.arguments.value("title-file"), what: "--title",
                fileOption: "title-file", console: context.console)
            let store = try context.openStore(.create, content: .required)
            let annotation = try store.createAnnotation(
                .bookmark, at: AnchorRequest(passage: context.arguments.positionals[0]), note: title)
            try report(annotation, context: context)
        })

    /// Prints the new id (or the annotation as JSON) on stdout, and what was made on stderr.
    private static func report(_ annotation: Annotation, context: Context) throws {
        if context.json {
            try Output.print(annotation.json, to: context.console)
        } else {
            context.console.out(annotation.id)
            let what = annotation.kind == .bookmark
                ? "Bookmarked \(annotation.anchor.start.passage)"
                : "Made a \(annotation.kind.rawValue) on \(Output.range(annotation.anchor)): "
                    + "“\(Output.excerpt(annotation.anchor.quote))”"
            context.console.err(what)
        }
    }
}
