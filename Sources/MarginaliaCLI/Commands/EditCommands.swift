import Marginalia

/// `edit`, `delete` and `undelete`.
enum EditCommands {
    private static let idArgument = CommandSpec.Argument(
        name: "ID", help: "The annotation's id, or a unique prefix of it (at least 4 characters).")

    static let edit = Command(
        spec: CommandSpec(
            name: "edit", summary: "Change an annotation's note, color or tags.",
            discussion: """
                An empty --note, --title or --color clears it. Each edit is a change in the log (see 'history'). \
                An edit that changes nothing (the values it already has, --untag of a tag it does not have) writes \
                nothing, says so on stderr and exits 0, as do delete of a deleted annotation and undelete of one that \
                is not deleted.
                """,
            arguments: [idArgument],
            options: [
                .init(name: "note", value: "TEXT", help: "Set the note; '-' reads it from standard input."),
                .init(name: "note-file", value: "FILE",
                      help: "Set the note to the text of FILE (UTF-8; one final line feed dropped)."),
                .init(name: "title", value: "TEXT", help: "Set a bookmark's title; '-' reads it from standard input."),
                .init(name: "title-file", value: "FILE", help: "Set a bookmark's title to the text of FILE."),
                .init(name: "color", value: "C", help: "Set the color."),
                .init(name: "tag", value: "T", help: "Add a tag.", repeatable: true),
                .init(name: "untag", value: "T", help: "Remove a tag, however its case and diacritics are written.",
                      repeatable: true),
            ],
            examples: [
                "marginalia edit $(marginalia highlight luceafarul.5) --note \"a better note\" --tag favorite",
                "marginalia edit $(marginalia bookmark luceafarul.9 --title draft) --title \"where I stopped\"",
            ]),
        run: { context in
            let arguments = context.arguments
            let given = ["note", "note-file", "title", "title-file", "color"].contains { arguments.value($0) != nil }
            guard given || !arguments.all("tag").isEmpty || !arguments.all("untag").isEmpty else {
                throw UsageError("nothing to change: give --note, --title, --color, --tag or --untag")
            }
            let note = try StandardInput.text(arguments.value("note"), file: arguments.value("note-file"),
                                              what: "--note", fileOption: "note-file", console: context.console)
            let title = try StandardInput.text(arguments.value("title"), file: arguments.value("title-file"),
                                               what: "--title", fileOption: "title-file", console: context.console)
            if note != nil && title != nil { throw UsageError("give --note or --title, not both") }
            let store = try context.openStore(.readWrite, content: .none)
            let id = arguments.positionals[0]
            if title != nil || note != nil {
                let current = try store.annotation(id: id)
                let shown = try store.abbreviatedID(current.id, kind: .annotation)
                if title != nil && current.kind != .bookmark {
                    throw UsageError("\(shown) is a \(current.kind.rawValue), which has a note, "
                        + "not a title: use --note")
                }
                if note != nil && current.kind == .bookmark {
                    throw UsageError("\(shown) is a bookmark, which has a title, not a note: "
                        + "use --title")
                }
            }
            try unlessUnchanged(store: store, context: context) {
                let annotation = try store.editAnnotation(
                    id: id, note: note ?? title, color: arguments.value("color"), addTags: arguments.all("tag"),
                    removeTags: arguments.all("untag"))
                try report(annotation, verb: "Edited", context: context)
            }
        })

    static let delete = Command(
        spec: CommandSpec(
            name: "delete", summary: "Delete an annotation (it stays as a tombstone and can be undeleted).",
            arguments: [idArgument],
            examples: ["marginalia delete $(marginalia highlight luceafarul.6)", "marginalia list --deleted"]),
        run: { context in
            let store = try context.openStore(.readWrite, content: .none)
            try unlessUnchanged(store: store, context: context) {
                try report(try store.deleteAnnotation(id: context.arguments.positionals[0]),
                           verb: "Deleted", context: context)
            }
        })

    static let undelete = Command(
        spec: CommandSpec(
            name: "undelete", summary: "Bring a deleted annotation back.",
            arguments: [idArgument],
            examples: [
                "marginalia undelete $(marginalia list --deleted --json | jq -r 'map(select(.deleted))[0].id')",
            ]),
        run: { context in
            let store = try context.openStore(.readWrite, content: .none)
            try unlessUnchanged(store: store, context: context) {
                try report(try store.undeleteAnnotation(id: context.arguments.positionals[0]),
                           verb: "Undeleted", context: context)
            }
        })

    /// Runs a change; when it would change nothing, says so on stderr (with --json, prints the annotation as it
    /// is) and returns normally: the command exits 0 and the store is as it was.
    private static func unlessUnchanged(store: AnnotationStore, context: Context, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as MarginaliaError {
            guard case .store(.unchanged(let id, let reason)) = error.reason else { throw error }
            if context.json { try Output.print(try store.annotation(id: id).json, to: context.console) }
            context.console.err("Nothing to change: \(reason)")
        }
    }

    private static func report(_ annotation: Annotation, verb: String, context: Context) throws {
        if context.json {
            try Output.print(annotation.json, to: context.console)
        } else {
            context.console.err("\(verb) \(annotation.id)")
        }
    }
}
