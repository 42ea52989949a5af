import Marginalia

/// `list` and `show`.
enum ListCommands {
    static let list = Command(
        spec: CommandSpec(
            name: "list", summary: "List annotations, in reading order when content is attached.",
            discussion: "Works without content: annotations keep their quote and context.",
            options: [
                .init(name: "document", value: "D", help: "Only annotations in document D."),
                .init(name: "passage", value: "P", help: "Only annotations that start or end in passage P."),
                .init(name: "kind", value: "K", help: "Only highlights, notes or bookmarks (highlight, note, bookmark)."),
                .init(name: "tag", value: "T", help: "Only annotations tagged T."),
                .init(name: "deleted", help: "Include deleted annotations."),
            ],
            examples: ["marginalia list", "marginalia list --document luceafarul --kind note --json"]),
        run: { context in
            let arguments = context.arguments
            var filter = AnnotationFilter(
                document: arguments.value("document"), passage: arguments.value("passage"), tag: arguments.value("tag"),
                includeDeleted: arguments.flag("deleted"))
            if let kind = arguments.value("kind") {
                guard let parsed = AnnotationKind(rawValue: kind) else {
                    throw UsageError("--kind is highlight, note or bookmark, not '\(kind)'")
                }
                filter.kind = parsed
            }
            let store = try context.openStore(.readOnly, content: .optional)
            let annotations = try store.annotations(matching: filter)
            if context.json {
                try Output.print(.array(annotations.map(Output.json)), to: context.console)
            } else {
                for annotation in annotations {
                    Output.summary(annotation).forEach { context.console.out($0) }
                }
                if annotations.isEmpty { context.console.err("No annotations") }
            }
        })

    static let show = Command(
        spec: CommandSpec(
            name: "show", summary: "Show one annotation in full.",
            arguments: [.init(name: "ID", help: "The annotation's id or a unique prefix (at least 4 characters).")],
            examples: ["marginalia show 3f1c2a9e", "marginalia show 3f1c2a9e --json"]),
        run: { context in
            let store = try context.openStore(.readOnly, content: .none)
            let annotation = try store.annotation(id: context.arguments.positionals[0])
            if context.json {
                try Output.print(Output.json(annotation), to: context.console)
            } else {
                Output.details(annotation).forEach { context.console.out($0) }
            }
        })
}
