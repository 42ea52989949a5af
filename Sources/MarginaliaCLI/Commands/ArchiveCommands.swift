import Foundation
import Marginalia

/// `export`, `import`, `backup` and `restore`: the compressed JSON archive.
enum ArchiveCommands {
    static let export = Command(
        spec: CommandSpec(
            name: "export", summary: "Write the store (or part of it) as a compressed JSON archive.",
            discussion: """
                The archive (.jsonl.gz) holds a header, every change of the log, the current annotations and \
                reading positions, and a trailer with counts. With --document or --since only the matching changes \
                are written and the archive is marked partial. Works without content. FILE is written through a \
                temporary file beside it; an existing FILE is replaced only with --force, and a store, its own \
                files, a directory, FIFO or device never ('-' streams to stdout instead). --format markdown, w3c or \
                csv writes the live annotations for people and other tools instead (orphans and titles from the \
                content when it is attached).
                """,
            arguments: [.init(name: "FILE", help: "Where to write the archive; '-' for stdout.")],
            options: InteropCommands.exportOptions + [
                .init(name: "document", value: "D", help: "Only document D's annotations and reading position."),
                .init(name: "since", value: "TIME", help: "Only changes at or after TIME (ISO 8601)."),
                .init(name: "force", help: "Replace an existing file at FILE (never a store or database)."),
            ] + Keys.encryptOptions,
            examples: ["marginalia export notes.jsonl.gz", "marginalia export - | zcat | jq -c .type | sort | uniq -c",
                       "marginalia export luceafarul.jsonl.gz --document luceafarul",
                       "marginalia export notes.md --format markdown"]),
        run: { context in
            if context.arguments.value("format").map({ $0 != "archive" }) ?? false,
               !context.arguments.all("recipient").isEmpty || context.arguments.flag("passphrase") {
                throw UsageError("--recipient and --passphrase encrypt archives; --format \(context.arguments.value("format") ?? "") "
                    + "writes a plain file")
            }
            if try InteropCommands.runExport(context) { return }
            let path = context.arguments.positionals[0]
            let filter = ExportFilter(
                document: context.arguments.value("document"),
                since: try HistoryCommands.time(context.arguments.value("since"), option: "since"))
            if path == "-" && isatty(1) == 1 {
                throw UsageError("will not write a compressed archive to a terminal; redirect it, e.g. "
                    + "'marginalia export - > notes.jsonl.gz', or name a FILE")
            }
            let encryption = try Keys.encryption(context)
            let store = try context.openStore(.readOnly, content: .none)
            let counts: ArchiveCounts
            counts = try context.withProgress(on: store) {
                guard path == "-" else {
                    return try store.exportArchive(toFile: path, filter: filter, force: context.arguments.flag("force"),
                                                   encryptTo: encryption)
                }
                let stdout = FileSink(fileDescriptor: 1, name: "stdout")
                let age = try encryption.map { try AgeEncryptingSink(to: $0, sink: stdout) }
                let counts = try store.exportArchive(to: age ?? stdout, filter: filter)
                try age?.finish()
                return counts
            }
            context.console.err("Exported " + Output.counts(
                changes: counts.changes, annotations: counts.annotations, positions: counts.positions)
                + "\(filter.isEmpty ? "" : " (partial)")"
                + "\(path == "-" ? "" : " to \(path)")"
                + (encryption == nil ? "" : ", encrypted (age)"))
        })

    static let `import` = Command(
        spec: CommandSpec(
            name: "import", summary: "Merge another machine's archive into the store.",
            discussion: """
                Changes already here (by change id) are skipped, so importing a file twice changes nothing. Each \
                field takes the value of its latest change (by clock, then device id); a delete is undone only by a \
                newer undelete, never by an edit or an old file. The whole file is read and checked before the \
                store is locked for the merge (other writers wait meanwhile only for the merge itself): a damaged \
                file changes nothing and exits 65. Changes dated more than a day ahead of this machine's clock \
                are held in quarantine instead of merged (see 'marginalia quarantine') and merged once they are \
                plausible, by the next import or command that writes; the rest of the file is merged.
                """,
            arguments: [.init(name: "FILE", help: "The archive (.jsonl.gz), or another tool's file; '-' reads it from "
                + "standard input.")],
            options: InteropCommands.importOptions + [
                      .init(name: "dry-run", help: "Say what would change, and change nothing."),
                      .init(name: "accept-future",
                            help: "Merge changes dated ahead of this machine's clock at once (and those of the file "
                                + "already in quarantine)."),
                      Context.allowMassDelete] + Keys.decryptOptions,
            examples: ["marginalia --store laptop.db import notes.jsonl.gz --dry-run",
                       "marginalia --store laptop.db init",
                       "marginalia --store laptop.db import notes.jsonl.gz",
                       "marginalia --store laptop.db export - | marginalia import -",
                       "marginalia import samples/my-clippings.txt --dry-run"]),
        run: { context in
            if try InteropCommands.runImport(context) { return }
            try refuseUnknownFormat(context.arguments.positionals[0], format: context.arguments.value("format"))
            let dryRun = context.arguments.flag("dry-run")
            let acceptFuture = context.arguments.flag("accept-future")
            let path = try StandardInput.archivePath(context.arguments.positionals[0])
            var limits = ArchiveLimits()
            limits.key = try Keys.decryption(for: path, context)
            // A dry run into a store that does not exist yet runs against an empty one in memory: it creates nothing.
            let store = dryRun && !context.storeExists
                ? try AnnotationStore.open(path: ":memory:", access: .create)
                : try context.openStore(.create, content: .none)
            let report = try context.withProgress(on: store) {
                try store.importArchive(path: path, dryRun: dryRun, acceptFuture: acceptFuture, limits: limits)
            }
            if context.json {
                try Output.print(importJSON(report.merge, dryRun: dryRun), to: context.console)
                return
            }
            let lead = (dryRun ? "Would import " : "Imported ") + Output.count(report.changesRead, "change")
            context.console.out("""
                \(lead): \(report.newChanges) new, \(report.duplicates) already here
                  annotations created: \(report.annotationsCreated)
                  updates applied:     \(report.updates)
                  deletions:           \(report.deletions)
                  conflicts resolved:  \(report.conflictsResolved) (newer values kept)
                """)
            for line in ConflictOutput.lines(report.conflicts, total: report.conflictsResolved,
                                             names: try store.deviceNames()) {
                context.console.out("  " + line)
            }
            if report.pending > 0 {
                context.console.out("  waiting for their annotation: \(report.pending) (the file is partial)")
            }
            if report.releasedFromQuarantine > 0 {
                context.console.out("  merged from quarantine: \(report.releasedFromQuarantine) (now plausible)")
            }
            if report.quarantined > 0 {
                context.console.out("  held in quarantine:  \(report.quarantined) (made more than a day ahead of this "
                    + "machine's clock; see 'marginalia quarantine')")
                let retry = context.suggested("import \(Output.shellQuoted(path)) --accept-future")
                for line in HeldOutput.lines(try store.quarantinedChanges(), now: Timestamp.nowMilliseconds(),
                                             retry: retry, release: context.suggested("quarantine --release")) {
                    context.console.out(line)
                }
            }
            if let renewed = report.renewedDeviceID {
                context.console.err("The file holds changes made under this store's device id on another copy of it; "
                    + "this store now uses device id \(renewed)")
            }
            if dryRun { context.console.err("Dry run: nothing was written") }
        })

    /// Refuses a file that is none of the formats `import` reads (Markdown, plain text), naming them, before it
    /// reaches the archive reader, which could say only "not a gzip file". What the archive reader tells apart
    /// itself (a store, a zip file, uncompressed JSON, an empty file) and standard input are left to it.
    static func refuseUnknownFormat(_ path: String, format: String?) throws {
        guard format == nil, path != "-", let head = try? InteropCommands.readInput(path, limit: 64),
              let first = head.first else { return }
        let text = head.starts(with: [0xEF, 0xBB, 0xBF]) ? head.dropFirst(3) : head[...]
        let significant = text.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        let known = (head.count >= 2 && first == 0x1F && head[1] == 0x8B)
            || head.starts(with: Array("age-encryption.org/".utf8)) || head.starts(with: Array("SQLite format 3".utf8))
            || head.starts(with: [0x50, 0x4B]) || significant == UInt8(ascii: "{") || significant == UInt8(ascii: "[")
        guard !known else { return }
        throw InputError("\(path): not a file import reads: it is neither a Marginalia archive (.jsonl.gz, or its "
            + "age-encrypted .jsonl.gz.age) nor a file of kindle (My Clippings.txt), koreader, readwise, w3c, "
            + "calibre or csv, told from its content (or name one with --format); Markdown is written by "
            + "'export --format markdown', never read back")
    }

    static let backup = Command(
        spec: CommandSpec(
            name: "backup", summary: "Write a verified backup archive.",
            discussion: """
                Writes the archive beside FILE, flushes it to disk, reads it back and checks it completely (every \
                record, the trailer, and the state rebuilt from its changes against the live store), then renames it \
                over FILE. An existing FILE is replaced only by a verified backup, and only when it is an archive \
                (an earlier backup, plain or encrypted: a nightly job can write the same FILE each night); a \
                store, its own files, any other file, a directory, FIFO or device never.
                """,
            arguments: [.init(name: "FILE", help: "The backup archive (.jsonl.gz; .jsonl.gz.age when encrypted).")],
            options: Keys.encryptOptions,
            examples: ["marginalia backup backup.jsonl.gz"]),
        run: { context in
            let encryption = try Keys.encryption(context)
            let store = try context.openStore(.readOnly, content: .none)
            let report = try context.withProgress(on: store) {
                try store.backup(to: context.arguments.positionals[0], encryptTo: encryption)
            }
            if context.json {
                try Output.print(.object(JSONObject([
                    ("path", .string(report.path)), ("verified", .bool(true)), ("encrypted", .bool(encryption != nil)),
                    ("changes", .int(Int64(report.counts.changes))),
                    ("annotations", .int(Int64(report.counts.annotations))),
                    ("positions", .int(Int64(report.counts.positions))), ("bytes", .int(Int64(report.compressedBytes))),
                ])), to: context.console)
            } else {
                context.console.out("Backed up " + Output.counts(
                    changes: report.counts.changes, annotations: report.counts.annotations,
                    positions: report.counts.positions) + " to \(report.path) "
                    + "(\(report.compressedBytes) bytes, verified\(encryption == nil ? "" : ", encrypted (age)"))")
            }
        })

    static let restore = Command(
        spec: CommandSpec(
            name: "restore", summary: "Replace the store with the one a backup holds.",
            discussion: """
                Verifies the archive completely while building the new store beside the old one, then copies it into \
                the store in one transaction: an app or command using the store waits for it and then sees the \
                restored store. Before the copy, the store as it is (every write made so far) is kept beside it under \
                a dated name (user.db.<time>.bak). The store is verified under its own name before 'Restored' is \
                printed; if anything fails, the old store stays under its name and the message names the .bak. A \
                symbolic link is followed and the store's file mode is kept. The restored store stays the device it \
                was: its device id, name, keys and place in its devices' roster are kept, whichever device made the \
                backup, so its next sync speaks as before (and reads back from the folder what it wrote there after \
                the backup). Restored where there was no store, or over a damaged one, it is a new device with a \
                fresh id, to be admitted by an invitation like any other.
                """,
            arguments: [.init(name: "FILE", help: "The backup archive (.jsonl.gz).")],
            options: [.init(name: "dry-run", help: "Verify and say what would be restored; change nothing.")]
                + Keys.decryptOptions,
            examples: ["marginalia restore backup.jsonl.gz --dry-run",
                       "marginalia --store elsewhere.db restore backup.jsonl.gz"]),
        run: { context in
            let dryRun = context.arguments.flag("dry-run")
            context.removeStaleFiles()
            // A store this run brings into being is removed again if a signal comes once it is in place: the
            // rename can finish while the signal is being handled, and nothing may be left of an interrupted run.
            if !dryRun && !context.storeExists { Interruption.removeOnInterrupt(context.storePath) }
            if !dryRun && context.storeExists { Interruption.watch(store: context.storePath) }
            let archive = context.arguments.positionals[0]
            var limits = ArchiveLimits()
            limits.key = try Keys.decryption(for: archive, context)
            let report = try AnnotationStore.restore(archive: archive, to: context.storePath, dryRun: dryRun,
                                                     limits: limits)
            let counts = report.verification.summary.counts
            if context.json {
                try Output.print(.object(JSONObject([
                    ("store", .string(context.storePath)), ("dryRun", .bool(dryRun)),
                    ("changes", .int(Int64(counts.changes))), ("annotations", .int(Int64(counts.annotations))),
                    ("positions", .int(Int64(counts.positions))),
                    ("previousStore", report.previousStore.map(JSONValue.string) ?? .null),
                    ("deviceId", .string(report.deviceID)), ("keptDevice", .bool(report.keptDevice)),
                    ("deviceName", report.deviceName.map(JSONValue.string) ?? .null),
                    ("backupDevice", .string(report.verification.summary.header.device)),
                    ("setAside", report.setAside.map { .int(Int64($0)) } ?? .null),
                ])), to: context.console)
                return
            }
            context.console.out("\(dryRun ? "Would restore" : "Restored") " + Output.counts(
                changes: counts.changes, annotations: counts.annotations, positions: counts.positions) + " "
                + "\(dryRun ? "to" : "into") \(context.storePath)")
            if let previous = report.previousStore { context.console.out("The previous store is kept at \(previous)") }
            if !dryRun { context.console.out(identityWords(report)) }
            if let aside = report.setAside, aside > 0 {
                context.console.out("Would set aside \(Output.count(aside, "change")) this store holds and the "
                    + "archive lacks: they would be kept only in the copy of the store the restore makes (.bak)")
            }
            if dryRun { context.console.err("Dry run: nothing was written") }
        })

    /// What a restore made of the device identity, in a sentence.
    static func identityWords(_ report: RestoreReport) -> String {
        let maker = report.verification.summary.header.device
        let device = Console.shown(report.deviceName.map { "\($0) (\(report.deviceID))" } ?? report.deviceID)
        guard report.keptDevice else {
            return "This store is a new device, \(device): to sync with your other devices, admit it with "
                + "'marginalia device invite FILE' on one of them and 'marginalia device join FILE' here"
        }
        let from = maker == report.deviceID || maker.isEmpty ? "" : " (the backup was made by device \(maker))"
        return "This store is still device \(device), with its keys and its place in the roster\(from)"
    }

    static func importJSON(_ report: MergeReport, dryRun: Bool) -> JSONValue {
        .object(JSONObject([
            ("dryRun", .bool(dryRun)), ("changesRead", .int(Int64(report.changesRead))),
            ("newChanges", .int(Int64(report.newChanges))), ("duplicates", .int(Int64(report.duplicates))),
            ("annotationsCreated", .int(Int64(report.annotationsCreated))), ("updates", .int(Int64(report.updates))),
            ("deletions", .int(Int64(report.deletions))), ("conflictsResolved", .int(Int64(report.conflictsResolved))),
            ("conflicts", ConflictOutput.json(report.conflicts)),
            ("pending", .int(Int64(report.pending))), ("quarantined", .int(Int64(report.quarantined))),
            ("releasedFromQuarantine", .int(Int64(report.releasedFromQuarantine))),
            ("renewedDeviceId", report.renewedDeviceID.map(JSONValue.string) ?? .null),
        ]))
    }
}
