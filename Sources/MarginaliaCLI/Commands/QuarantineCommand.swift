import Marginalia

/// `quarantine`: the changes held back because they are dated ahead of this machine's clock, and the notes of
/// local writes made with the clock far off.
enum QuarantineCommand {
    static let command = Command(
        spec: CommandSpec(
            name: "quarantine", summary: "List changes held back because they are dated in the future.",
            discussion: """
                An imported change dated more than a day ahead of this machine's clock is kept here instead of in \
                the log, so that one device with a wrong clock cannot push every later change into the future. \
                Each is merged as soon as it is plausible (by the next import or command that writes), or at once \
                with 'marginalia import FILE --accept-future'. The rest of each file was merged. Also lists the \
                local writes made while this machine's clock was more than a day off the store's newest change. \
                Archives carry only the log; a restore keeps the replaced store's quarantine. Reads only.
                """,
            examples: ["marginalia quarantine", "marginalia --json quarantine"]),
        run: { context in
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
                context.console.out("\(item.change.hlc.iso8601)  \(item.change.operation.rawValue) "
                    + "\(item.change.entity.rawValue) \(item.change.entityID)  change \(item.change.changeID) by "
                    + "device \(item.change.device)  from \(item.source), seen \(item.seenAt)")
            }
            for note in notes { context.console.out("clock note: \(note)") }
        })
}
