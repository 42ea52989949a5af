import Marginalia

enum PositionCommand {
    static let command = Command(
        spec: CommandSpec(
            name: "position", summary: "Set the reading position in a document, or show it.",
            arguments: [
                .init(name: "DOCUMENT", help: "The document id."),
                .init(name: "PASSAGE[:OFFSET]", help: "Where the reader is; without it, the position is shown.",
                      optional: true),
            ],
            examples: ["marginalia position luceafarul luceafarul.42", "marginalia position luceafarul"]),
        run: { context in
            let document = context.arguments.positionals[0]
            let position: ReadingPosition?
            if let place = context.arguments.positional(1) {
                let (passage, offset, end) = try AnchorSyntax.parse(place)
                if end != nil { throw UsageError("a position is PASSAGE[:OFFSET], one offset") }
                let store = try context.openStore(.create, content: .required)
                position = try store.setPosition(
                    document: document, at: TextPosition(passage: passage, offset: offset ?? 0))
            } else {
                let store = try context.openStore(.readOnly, content: .none)
                position = try store.position(document: document)
            }
            if context.json {
                try Output.print(position.map(\.json) ?? .null, to: context.console)
            } else if let position {
                context.console.out("\(position.position)")
            } else {
                context.console.err("No reading position in \(document)")
            }
        })
}
