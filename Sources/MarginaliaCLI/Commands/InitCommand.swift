import Marginalia

enum InitCommand {
    static let command = Command(
        spec: CommandSpec(
            name: "init", summary: "Create the user store if it does not exist, and print its device id.",
            discussion: """
                The store at the default path is also created by the first write; init makes it explicit. A store \
                at a path given with --store is created only by init (or restore): a write to a --store path that \
                does not exist is refused, so that a mistyped path never becomes a new, empty store.
                """,
            examples: ["marginalia init", "marginalia --store ~/notes/user.db init"]),
        run: { context in
            let existed = context.storeExists
            let store = try context.openStore(.create, content: .none, creates: true)
            if context.json {
                try Output.print(.object(JSONObject([
                    ("store", .string(store.path)), ("deviceId", .string(store.deviceID)), ("created", .bool(!existed)),
                ])), to: context.console)
            } else {
                context.console.out(store.deviceID)
                context.console.err(existed ? "Store already at \(store.path)" : "Created store at \(store.path)")
            }
        })
}
