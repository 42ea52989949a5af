import Marginalia

/// `sync FOLDER`: one sync round through a folder a file-sync tool keeps in step between machines.
enum SyncCommand {
    static let command = Command(
        spec: CommandSpec(
            name: "sync", summary: "Exchange changes with other machines through a shared folder.",
            discussion: """
                FOLDER is a folder that Syncthing, Dropbox, iCloud Drive or a USB stick keeps in step between \
                machines. Each store writes only in FOLDER/devices/<its device id>/, and only new files: one \
                compressed segment with its changes the folder does not hold yet (none when nothing is new). \
                Every other device's segments not applied yet are merged; a file that is still being copied, \
                a placeholder or a conflict copy is left for the next round and listed as pending (the round \
                still exits 0). Deletions stay deletions. The store must not live inside FOLDER: a sync tool \
                that copies an open database corrupts it. --compact folds this store's own segments into one. \
                A change made more than a day ahead of this machine's clock (by when it was made, not by the \
                clock that orders it) is held in quarantine and named in the output; it is merged once its time \
                comes, or at once with --accept-future or 'marginalia quarantine --release'.
                """,
            arguments: [.init(name: "FOLDER", help: "The shared folder.")],
            options: [.init(name: "compact", help: "Fold this store's own segments into one."),
                      .init(name: "accept-future",
                            help: "Merge at once the changes made more than a day ahead of this machine's clock "
                                + "(those held from earlier rounds too) instead of holding them.")],
            examples: ["mkdir -p ~/Sync/marginalia && marginalia sync ~/Sync/marginalia",
                       "marginalia --json sync ~/Sync/marginalia"]),
        run: { context in
            // Before the store is opened: opening creates it, and a store inside the folder must never be made.
            try AnnotationStore.checkSyncLocation(store: context.storePath, folder: context.arguments.positionals[0])
            let store = try context.openStore(.create, content: .none)
            let folder = context.arguments.positionals[0]
            let report = try store.sync(folder: folder, compact: context.arguments.flag("compact"),
                                        acceptFuture: context.arguments.flag("accept-future"))
            if context.json {
                try Output.print(json(report), to: context.console)
                return
            }
            for line in text(report) { context.console.out(line) }
            if report.held > 0 {
                let retry = "marginalia sync \(Output.shellQuoted(folder)) --accept-future"
                for line in HeldOutput.lines(try store.quarantinedChanges(), now: Timestamp.nowMilliseconds(),
                                             retry: retry) {
                    context.console.out(line)
                }
            }
        })

    static func text(_ report: SyncReport) -> [String] {
        var lines: [String] = []
        if report.createdManifest { lines.append("Created \(report.folder)/marginalia-sync.json.") }
        if let old = report.renewedFromDeviceID {
            lines.append("This store now writes as device \(report.deviceID) (was \(old)): "
                + (report.renewalReason ?? "") + ".")
        }
        for device in report.devices where device.device != report.deviceID || device.segmentsApplied > 0 {
            guard device.segmentsApplied > 0 || !device.pending.isEmpty || !device.invalid.isEmpty else { continue }
            lines.append("\(device.device): \(Output.count(device.segmentsApplied, "segment")), "
                + "\(Output.count(device.changesApplied, "new change")), \(device.duplicates) already here, "
                + "\(Output.count(device.conflictsResolved, "conflict")) resolved")
        }
        for device in report.devices {
            lines += ConflictOutput.lines(device.conflicts, total: device.conflictsResolved)
        }
        for issue in report.pending { lines.append("pending: \(issue)") }
        for issue in report.invalid { lines.append("invalid: \(issue)") }
        if let written = report.written {
            lines.append("Wrote \(written.path): \(Output.count(written.changes, "change")), "
                + "\(Output.count(written.bytes, "byte")).")
        }
        if let compacted = report.compactedInto {
            lines.append("Compacted \(Output.count(report.removed.count, "segment")) into \(compacted.path).")
        }
        if report.releasedFromQuarantine > 0 {
            lines.append("Merged \(Output.count(report.releasedFromQuarantine, "change")) held in quarantine.")
        }
        if report.written == nil && report.changesApplied == 0 && report.releasedFromQuarantine == 0 {
            lines.append("Nothing new.")
        }
        if !report.pending.isEmpty {
            lines.append("\(Output.count(report.pending.count, "file")) pending: run sync again once the sync tool "
                + "has caught up.")
        }
        return lines
    }

    static func json(_ report: SyncReport) -> JSONValue {
        func issue(_ item: SyncFileIssue) -> JSONValue {
            var members: [(String, JSONValue)] = [("path", .string(item.path))]
            if let line = item.line { members.append(("line", .int(Int64(line)))) }
            members.append(("reason", .string(item.reason)))
            return .object(JSONObject(members))
        }
        func segment(_ item: SyncSegment?) -> JSONValue {
            guard let item else { return .null }
            return .object(JSONObject([
                ("path", .string(item.path)), ("changes", .int(Int64(item.changes))),
                ("bytes", .int(Int64(item.bytes))), ("firstSeq", .int(item.firstSequence)),
                ("lastSeq", .int(item.lastSequence)),
            ]))
        }
        return .object(JSONObject([
            ("folder", .string(report.folder)), ("device", .string(report.deviceID)),
            ("createdManifest", .bool(report.createdManifest)),
            ("renewedFromDevice", report.renewedFromDeviceID.map(JSONValue.string) ?? .null),
            ("renewalReason", report.renewalReason.map(JSONValue.string) ?? .null),
            ("written", segment(report.written)), ("compactedInto", segment(report.compactedInto)),
            ("removed", .array(report.removed.map(JSONValue.string))),
            ("changesApplied", .int(Int64(report.changesApplied))),
            ("releasedFromQuarantine", .int(Int64(report.releasedFromQuarantine))),
            ("held", .int(Int64(report.held))),
            ("devices", .array(report.devices.map { device in
                .object(JSONObject([
                    ("device", .string(device.device)), ("segmentsApplied", .int(Int64(device.segmentsApplied))),
                    ("changesApplied", .int(Int64(device.changesApplied))),
                    ("duplicates", .int(Int64(device.duplicates))),
                    ("conflictsResolved", .int(Int64(device.conflictsResolved))),
                    ("conflicts", ConflictOutput.json(device.conflicts)),
                    ("quarantined", .int(Int64(device.quarantined))),
                    ("pending", .array(device.pending.map(issue))), ("invalid", .array(device.invalid.map(issue))),
                ]))
            })),
            ("pending", .array(report.pending.map(issue))),
        ]))
    }
}
