import Marginalia

/// `revert`: undo by going forward.
enum RevertCommand {
    /// The short id of the first annotation `list` prints, as the examples take it.
    private static let first = "$(marginalia list | awk 'NR == 1 { print $1 }')"

    static let command = Command(
        spec: CommandSpec(
            name: "revert", summary: "Set an annotation back to how it was right after one of its changes.",
            discussion: """
                Writes one new change that sets the note, color, tags, deleted flag and anchor back to their values \
                right after CHANGE (by the changes' clocks, as 'show --as-of' that change's time shows them). \
                Nothing is erased: the revert is one more change in the log, shown by 'history', and it merges \
                like any edit. CHANGE is a change id as 'history' shows it (at least 4 characters). When the \
                annotation is already as it was then, nothing is written.
                """,
            arguments: [.init(name: "ID", help: "The annotation's id or a unique prefix (at least 4 characters).")],
            options: [.init(name: "to", value: "CHANGE", help: "The change to go back to (required).")],
            examples: [
                "marginalia history \(first)",
                "marginalia revert \(first) --to $(marginalia history \(first) | awk 'NR == 1 { print $4 }')",
            ]),
        run: { context in
            guard let change = context.arguments.value("to") else {
                throw UsageError("give --to CHANGE: the change id (see 'history') to go back to")
            }
            let store = try context.openStore(.readWrite, content: .none)
            let result: RevertResult
            do {
                result = try store.revertAnnotation(id: context.arguments.positionals[0], to: change)
            } catch let error as MarginaliaError {
                // Already as it was: nothing to write, and nothing wrong (as for an edit to the values it has).
                guard case .store(.unchanged(let id, let reason)) = error.reason else { throw error }
                if context.json {
                    try Output.print(.object(JSONObject([
                        ("annotation", try store.annotation(id: id).json), ("change", .null),
                    ])), to: context.console)
                }
                context.console.err("Nothing to change: \(reason)")
                return
            }
            if context.json {
                try Output.print(.object(JSONObject([
                    ("annotation", result.annotation.json), ("change", Output.json(result.change)),
                ])), to: context.console)
            } else {
                let target = result.change.fields.revertTo ?? change
                let ids = try ShortIDs(store, changes: [target, result.change.changeID])
                context.console.err("Reverted \(result.annotation.id) to change \(ids(target, .change)) (new change "
                    + "\(ids(result.change.changeID, .change)))")
            }
        })
}
