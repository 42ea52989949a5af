import Marginalia

enum PositionCommand {
    static let command = Command(
        spec: CommandSpec(
            name: "position", summary: "Set the reading position in a document, or show it (--all: every one).",
            arguments: [
                .init(name: "DOCUMENT", help: "The document id (none with --all).", optional: true),
                .init(name: "PASSAGE[:OFFSET]", help: "Where the reader is; without it, the position is shown.",
                      optional: true),
            ],
            options: [.init(name: "all", help: "List the reading position of every document, latest first.")],
            examples: ["marginalia position luceafarul luceafarul.42", "marginalia position luceafarul",
                       "marginalia position --all"]),
        run: { context in
            if context.arguments.flag("all") {
                guard context.arguments.positional(0) == nil else {
                    throw UsageError("--all lists every position: give no DOCUMENT")
                }
                let store = try context.openStore(.readOnly, content: .none)
                let positions = try store.positions().sorted { $0.updatedAt > $1.updatedAt }
                if context.json {
                    try Output.print(.array(positions.map(\.json)), to: context.console)
                } else {
                    for position in positions {
                        context.console.out("\(position.document.padding(24)) \(position.position)  "
                            + "(\(position.updatedAt))")
                    }
                    if positions.isEmpty { context.console.err("No reading positions") }
                }
                return
            }
            guard let document = context.arguments.positional(0) else {
                throw UsageError("give a DOCUMENT, or --all")
            }
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
