import Marginalia

/// `quarantine`: the changes held back because they are dated ahead of this machine's clock, and the notes of
/// local writes made with the clock far off.
enum QuarantineCommand {
    static let command = Command(
        spec: CommandSpec(
            name: "quarantine", summary: "List changes held back because they were made in the future.",
            discussion: """
                A change that arrives (by import or sync) made more than a day ahead of this machine's clock, by \
                the wall clock of the machine that made it, is kept here instead of in the log: one device with a \
                wrong clock cannot date notes days ahead. The rest of each file was merged. Each is merged as soon \
                as its time comes (by the next command that writes), or at once with --release, 'marginalia sync \
                FOLDER --accept-future' or 'marginalia import FILE --accept-future'. Also lists the local writes \
                made while this machine's clock was more than a day behind the newest change made on it (a clock \
                set back), one note per episode. Archives carry only the log; a restore keeps the replaced store's \
                quarantine. Reads only, but for --release.
                """,
            options: [.init(name: "release", help: "Merge every held change now, whenever it was made.")],
            examples: ["marginalia quarantine", "marginalia --json quarantine", "marginalia quarantine --release"]),
        run: { context in
            if context.arguments.flag("release") {
                let store = try context.openStore(.readWrite, content: .none)
                let released = try store.releaseQuarantinedChanges()
                if context.json {
                    try Output.print(.object(JSONObject([("released", .int(Int64(released)))])), to: context.console)
                } else {
                    context.console.out(released == 0 ? "No change is held in quarantine."
                        : "Merged \(Output.count(released, "change")) held in quarantine.")
                }
                return
            }
            let store = try context.openStore(.readOnly, content: .none)
            let held = try store.quarantinedChanges()
            let notes = try store.clockNotes()
            if context.json {
                try Output.print(.object(JSONObject([
                    ("quarantined", .array(held.map { item in
                        var object = JSONObject()
                        if case .object(let change) = Output.json(item.change) { object = change }
                        object["source"] = .string(item.source)
                        object["seenAt"] = .string(item.seenAt)
                        return .object(object)
                    })),
                    ("clockNotes", .array(notes.map { note in
                        .object(JSONObject([
                            ("changeId", .string(note.changeID)), ("direction", .string(note.direction.rawValue)),
                            ("wallClock", .string(Timestamp.iso8601(milliseconds: note.wallClock))),
                            ("newestChange", .string(note.newestChange.iso8601)),
                        ]))
                    })),
                ])), to: context.console)
                return
            }
            if held.isEmpty { context.console.out("No change is held in quarantine.") }
            for item in held {
                let made = Timestamp.iso8601(milliseconds: item.change.madeAt)
                context.console.out("\(made)  \(item.change.operation.rawValue) "
                    + "\(item.change.entity.rawValue) \(item.change.entityID)  change \(item.change.changeID) by "
                    + "device \(item.change.device)  from \(item.source), seen \(item.seenAt)")
            }
            for note in notes { context.console.out("clock note: \(note)") }
        })
}
