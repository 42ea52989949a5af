import Marginalia

enum InitCommand {
    static let command = Command(
        spec: CommandSpec(
            name: "init", summary: "Create the user store if it does not exist, and print its device id.",
            discussion: "The store is also created by the first annotation; init makes it explicit.",
            examples: ["marginalia init", "marginalia --store ~/notes/user.db init"]),
        run: { context in
            let existed = context.storeExists
            let store = try context.openStore(.create, content: .none)
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
