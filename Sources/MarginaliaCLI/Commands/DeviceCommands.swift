import Marginalia

/// `device`, `device name` and `devices`: who made the changes, by name.
enum DeviceCommands {
    static let show = Command(
        spec: CommandSpec(
            name: "device", summary: "Show this store's device: its id, name and when the store was made.",
            discussion: """
                Every change a store makes carries its device id; 'device name' gives the device a name that \
                'log', 'history', 'diff', 'show' and 'sync' print instead of the id. Reads only.
                """,
            examples: ["marginalia device", "marginalia --json device"]),
        run: { context in
            let store = try context.openStore(.readOnly, content: .none)
            let device = try store.device()
            let created = try store.createdAt()
            if context.json {
                try Output.print(json(device, created: created), to: context.console)
                return
            }
            context.console.out("device \(device.id)")
            let unnamed = "(none; set one with '\(context.suggested("device name NAME"))')"
            context.console.out("name   \(device.name ?? unnamed)")
            context.console.out("store  made \(created), \(Output.count(device.changeCount, "change")) made here")
            if let roster = try store.roster(), let member = roster.members[device.id] {
                context.console.out("keys   fingerprint \(member.keys.fingerprint), "
                    + (member.isActive ? "admitted to roster \(roster.id)"
                        : "refused: \(roster.refusal(of: device.id) ?? "")"))
            }
        })

    static let name = Command(
        spec: CommandSpec(
            name: "device name", summary: "Name this store's device (laptop, phone): a change that travels.",
            discussion: """
                Records the name as a change in the log, so that it travels by archive and sync: the other \
                devices print it too once they have the change. The latest name given wins. A name is 1 to 64 \
                characters, without control characters or surrounding spaces.
                """,
            arguments: [.init(name: "NAME", help: "The device's name, e.g. laptop.")],
            examples: ["marginalia device name laptop"]),
        run: { context in
            let name = context.arguments.positionals[0]
            let store = try context.openStore(.create, content: .none)
            try store.nameDevice(name)
            context.console.out("This device (\(store.deviceID)) is now called \(name)")
        })

    static let list = Command(
        spec: CommandSpec(
            name: "devices", summary: "List every device the store has heard of, with names and how changes came.",
            discussion: """
                One line per device, in the order the store first heard of it: its short id, its name (an \
                interop import's device is named for its format, e.g. 'Kindle import'), how many changes of the \
                log it made, its first and latest change, and how they arrived ('made here', or by import, \
                restore, sync, merge). Reads only.
                """,
            examples: ["marginalia devices", "marginalia --json devices"]),
        run: { context in
            let store = try context.openStore(.readOnly, content: .none)
            let devices = try store.devices()
            if context.json {
                try Output.print(.array(devices.map { json($0, created: nil) }), to: context.console)
                return
            }
            let ids = try ShortIDs(store, devices: devices.map(\.id))
            for device in devices {
                var line = "\(ids(device.id, .device))  \(device.name ?? "(no name)")"
                if device.isThisDevice { line += " (this device)" }
                line += "  \(Output.count(device.changeCount, "change"))"
                if let first = device.firstChange, let last = device.lastChange {
                    line += "  \(Timestamp.iso8601(milliseconds: first)) … \(Timestamp.iso8601(milliseconds: last))"
                }
                if !device.arrivals.isEmpty { line += "  " + device.arrivals.map(\.rawValue).joined(separator: ", ") }
                context.console.out(line)
            }
        })

    static func json(_ device: DeviceInfo, created: String?) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .string(device.id)), ("name", device.name.map(JSONValue.string) ?? .null),
            ("thisDevice", .bool(device.isThisDevice)), ("changes", .int(Int64(device.changeCount))),
            ("firstChange", device.firstChange.map { .string(Timestamp.iso8601(milliseconds: $0)) } ?? .null),
            ("lastChange", device.lastChange.map { .string(Timestamp.iso8601(milliseconds: $0)) } ?? .null),
            ("arrivals", .array(device.arrivals.map { .string($0.rawValue) })),
        ]
        if let created { members.append(("storeCreatedAt", .string(created))) }
        return .object(JSONObject(members))
    }
}
