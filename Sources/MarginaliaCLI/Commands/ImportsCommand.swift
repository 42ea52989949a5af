import Marginalia

/// `imports`: the receipts of the changes this store received, and how `log --json` and `history --json` name them.
enum ImportsCommand {
    static let command = Command(
        spec: CommandSpec(
            name: "imports", summary: "List how received changes arrived: each import, restore and sync.",
            discussion: """
                Each import, restore, applied sync segment or merge that brought new changes (or held some in \
                quarantine) leaves a receipt: when, the kind, the file as named, its size and SHA-256 as read, and \
                the changes read, new, already here and held. Every change it brought points to it ('log --json' \
                and 'history --json' show it as the change's source; a change made here is 'local'). A store \
                upgraded from schema 3 has one 'unrecorded' receipt for the changes it held from other devices. An \
                import that commits in steps and has not finished is listed first ('importing FILE: 2600 of 8000 \
                changes'): another process is importing it, or it was stopped and the next command that writes \
                finishes it. Reads only.
                """,
            examples: ["marginalia imports", "marginalia --json imports"]),
        run: { context in
            let store = try context.openStore(.readOnly, content: .none)
            let receipts = try store.receipts()
            // Read after the open, which finishes a stopped import when it can.
            let running = (try? CommittedState.read(path: store.path))?.imports ?? []
            if context.json {
                var listed = receipts.map(json)
                listed.insert(contentsOf: running.map(json), at: 0)
                try Output.print(.array(listed), to: context.console)
                return
            }
            for item in running {
                context.console.out("importing \(item.archive): \(item.changesRead)"
                    + (item.total.map { " of \($0)" } ?? "") + " changes so far")
            }
            if receipts.isEmpty && running.isEmpty {
                context.console.out("No change was received: every change was made here.")
            }
            for receipt in receipts {
                var line = "#\(receipt.id)  \(receipt.receivedAt)  \(receipt.kind.rawValue)"
                if let file = receipt.file { line += "  \(file)" }
                if let size = receipt.size { line += "  \(size) bytes" }
                if let sha256 = receipt.sha256 { line += "  sha256 \(sha256)" }
                line += "  \(receipt.newChanges) new, \(receipt.duplicates) already here"
                if receipt.quarantined > 0 { line += ", \(receipt.quarantined) held in quarantine" }
                context.console.out(line)
            }
        })

    /// An import under way as JSON, listed before the receipts by `imports --json`.
    static func json(_ running: CommittedState.ImportInProgress) -> JSONValue {
        .object(JSONObject([
            ("kind", .string("importing")), ("file", .string(running.archive)),
            ("changesRead", .int(Int64(running.changesRead))),
            ("changesTotal", running.total.map { .int(Int64($0)) } ?? .null),
        ]))
    }

    /// A receipt as JSON: what `imports --json` lists, and a received change's `source`.
    static func json(_ receipt: Receipt) -> JSONValue {
        .object(JSONObject([
            ("receipt", .int(receipt.id)), ("kind", .string(receipt.kind.rawValue)),
            ("receivedAt", .string(receipt.receivedAt)), ("file", receipt.file.map(JSONValue.string) ?? .null),
            ("size", receipt.size.map(JSONValue.int) ?? .null),
            ("sha256", receipt.sha256.map(JSONValue.string) ?? .null),
            ("changesRead", .int(Int64(receipt.changesRead))), ("newChanges", .int(Int64(receipt.newChanges))),
            ("duplicates", .int(Int64(receipt.duplicates))), ("quarantined", .int(Int64(receipt.quarantined))),
        ]))
    }

    /// Each change as `log --json` prints it, with `source` (`"local"`, or its receipt) and `receivedAt` (for a
    /// local change, when it was made).
    static func json(_ changes: [Change], receipts: [String: Receipt]) -> [JSONValue] {
        changes.map { change in
            guard case .object(var object) = Output.json(change) else { return Output.json(change) }
            if let receipt = receipts[change.changeID] {
                object["source"] = json(receipt)
                object["receivedAt"] = .string(receipt.receivedAt)
            } else {
                object["source"] = .string("local")
                object["receivedAt"] = .string(Timestamp.iso8601(milliseconds: change.madeAt))
            }
            return .object(object)
        }
    }
}
