import Marginalia

/// `edit`, `delete` and `undelete`.
enum EditCommands {
    private static let idArgument = CommandSpec.Argument(
        name: "ID", help: "The annotation's id, or a unique prefix of it (at least 4 characters).")

    static let edit = Command(
        spec: CommandSpec(
            name: "edit", summary: "Change an annotation's note, color or tags.",
            discussion: "An empty --note or --color clears it. Each edit is a change in the log (see 'history').",
            arguments: [idArgument],
            options: [
                .init(name: "note", value: "TEXT",
                      help: "Set the note (a bookmark's title); '-' reads it from standard input."),
                .init(name: "note-file", value: "FILE",
                      help: "Set the note (or title) to the text of FILE (UTF-8; one final line feed dropped)."),
                .init(name: "color", value: "C", help: "Set the color."),
                .init(name: "tag", value: "T", help: "Add a tag.", repeatable: true),
                .init(name: "untag", value: "T", help: "Remove a tag, however its case and diacritics are written.",
                      repeatable: true),
            ],
            examples: [
                "marginalia edit 3f1c2a9e --note \"a better note\" --tag favorite",
                "marginalia edit 3f1c --color \"\"",
            ]),
        run: { context in
            let arguments = context.arguments
            let given = ["note", "note-file", "color"].contains { arguments.value($0) != nil }
            guard given || !arguments.all("tag").isEmpty || !arguments.all("untag").isEmpty else {
                throw UsageError("nothing to change: give --note, --note-file, --color, --tag or --untag")
            }
            let note = try StandardInput.text(arguments.value("note"), file: arguments.value("note-file"),
                                              what: "--note", fileOption: "note-file", console: context.console)
            let store = try context.openStore(.readWrite, content: .none)
            let annotation = try store.editAnnotation(
                id: arguments.positionals[0], note: note, color: arguments.value("color"),
                addTags: arguments.all("tag"), removeTags: arguments.all("untag"))
            try report(annotation, verb: "Edited", context: context)
        })

    static let delete = Command(
        spec: CommandSpec(
            name: "delete", summary: "Delete an annotation (it stays as a tombstone and can be undeleted).",
            arguments: [idArgument],
            examples: ["marginalia delete 3f1c2a9e", "marginalia list --deleted"]),
        run: { context in
            let store = try context.openStore(.readWrite, content: .none)
            try report(try store.deleteAnnotation(id: context.arguments.positionals[0]),
                       verb: "Deleted", context: context)
        })

    static let undelete = Command(
        spec: CommandSpec(
            name: "undelete", summary: "Bring a deleted annotation back.",
            arguments: [idArgument],
            examples: ["marginalia undelete 3f1c2a9e"]),
        run: { context in
            let store = try context.openStore(.readWrite, content: .none)
            try report(try store.undeleteAnnotation(id: context.arguments.positionals[0]),
                       verb: "Undeleted", context: context)
        })

    private static func report(_ annotation: Annotation, verb: String, context: Context) throws {
        if context.json {
            try Output.print(annotation.json, to: context.console)
        } else {
            context.console.err("\(verb) \(annotation.id)")
        }
    }
}
