import Foundation
import Marginalia

/// `sync FOLDER`: one sync round through a folder a file-sync tool keeps in step between machines.
enum SyncCommand {
    static let command = Command(
        spec: CommandSpec(
            name: "sync", summary: "Exchange changes with other machines through a shared folder.",
            discussion: """
                FOLDER is a folder that Syncthing, Dropbox, iCloud Drive or a USB stick keeps in step between \
                machines. Each store writes only in FOLDER/devices/<its device id>/: its manifest once, one \
                compressed segment of the changes made on this machine since its last (none when nothing is new), \
                and a list of the files it could not read. Each change is in the folder once; a new machine \
                catches up from every device's directory. Every other device's segments not applied yet are \
                checked whole, then merged; a file still being copied is listed as pending and read once whole; \
                a damaged one (whole but failing its checks) is named on every round, nothing of it is merged, \
                and its writer writes its changes again; a file a sync tool left unchanged for 15 minutes is \
                named once as a leftover, safe to delete. The round still exits 0. Deletions stay deletions, but a \
                segment that would delete more than half of the live annotations (and more than 50) is held: \
                nothing of it is merged, the round names it and how many it would delete by which device, and \
                exits 1; --allow-mass-delete lets it through. \
                The store must not live inside FOLDER: a sync tool that copies an open database corrupts it. \
                Only the devices of the folder's roster speak there: each signs what it writes and takes only what \
                they signed. The first store to sync through FOLDER founds its roster; another store reads and \
                writes nothing there until it joins ('marginalia device invite FILE' on a device of the roster, \
                'marginalia device join FILE' on the new one, then sync on the new one and on the inviting one). \
                --compact folds this store's own segments older than an hour into one (done anyway beyond 64). \
                A change made more than a day ahead of this machine's clock (by when it was made, not by the \
                clock that orders it) is held in quarantine and named in the output; it is merged once its time \
                comes, or at once with --accept-future or 'marginalia quarantine --release'. See the README for \
                the ignore patterns to give the sync tool. Every file this store writes there is signed with its \
                device key, and only what a device of the folder's roster signed is taken. With --encrypt (once: \
                remembered by the store, wherever the folder is mounted) each segment is an age file sealed to a \
                key of this device's for the roster's epoch, wrapped in its directory to every admitted device and \
                recovery key ('key recovery'), so the folder holds no note, quote or tag and no identity need be \
                given; after 'device revoke' every device starts a new epoch at its next round, so the revoked \
                device opens nothing written afterwards. --recipient (remembered too) turns encryption on as well \
                and wraps the epoch keys to that recipient, whose identity then opens them with stock age. \
                --identity opens segments that earlier versions encrypted straight to it. Plain and encrypted \
                segments are read side by side. --plain turns encryption off.

                --remote REMOTE:PATH syncs through storage that rclone reaches instead of a folder: an S3 bucket \
                (AWS, R2, MinIO, Garage), a WebDAV server (Nextcloud), or any rclone remote, configured the rclone \
                way ('rclone config', or RCLONE_CONFIG_<NAME>_… variables; marginalia never sees a credential). \
                The round runs on a local mirror of the remote folder (beside the store, or --mirror DIR): rclone \
                pulls every other device's directory into it, the ordinary round runs there, then rclone sends \
                this device's own new files, each under a temporary name moved into place (a segment already \
                there is never replaced), and removes only the segments it folded into another. Nothing outside devices/<this device>/ is written or \
                removed on the remote. A pull that fails changes nothing; a send that fails is done first at the \
                next round. rclone retries a failed transfer --retries times (default 3) and each request \
                --low-level-retries times (default 10). Exit status: 69 the remote cannot be reached, 77 it \
                refused the credentials or the path, 73 it is full, 66 no such bucket or path, 78 no such rclone \
                remote, 75 another rclone failure.
                """,
            arguments: [.init(name: "FOLDER", help: "The shared folder (or --remote).", optional: true)],
            options: [.init(name: "compact", help: "Fold this store's own segments older than an hour into one."),
                      .init(name: "accept-future",
                            help: "Merge at once the changes made more than a day ahead of this machine's clock "
                                + "(those held from earlier rounds too) instead of holding them."),
                      .init(name: "recipient", value: "AGE1…",
                            help: "Encrypt the segments this store writes to this age recipient (repeatable); "
                                + "remembered for the folder.", repeatable: true),
                      .init(name: "encrypt",
                            help: "Encrypt every segment this store writes, by epochs of its roster (remembered)."),
                      .init(name: "plain", help: "Stop encrypting: forget the recipients, write plain segments again."),
                      .init(name: "identity", value: "FILE",
                            help: "An age identity that opens segments earlier versions encrypted to it "
                                + "(default: the one 'marginalia key new' made, if any)."),
                      .init(name: "remote", value: "REMOTE:PATH",
                            help: "Sync through an rclone remote (a bucket, a WebDAV server) instead of a folder."),
                      .init(name: "mirror", value: "DIR",
                            help: "The local mirror of the remote folder (default: beside the store)."),
                      .init(name: "retries", value: "N", help: "rclone's retries of a failed transfer (default 3)."),
                      .init(name: "low-level-retries", value: "N",
                            help: "rclone's retries of each failed request (default 10)."),
                      Context.allowMassDelete],
            examples: ["mkdir -p ~/Sync/marginalia && marginalia sync ~/Sync/marginalia",
                       "marginalia --json sync ~/Sync/marginalia",
                       "RCLONE_CONFIG_NOTES_TYPE=local marginalia sync --remote notes:$HOME/remote-folder"]),
        run: { context in
            let remote = context.arguments.value("remote")
            guard (remote == nil) != context.arguments.positionals.isEmpty else {
                throw UsageError(remote == nil ? "give the shared FOLDER, or --remote REMOTE:PATH"
                    : "give the shared FOLDER or --remote REMOTE:PATH, not both")
            }
            guard remote != nil || (context.arguments.value("mirror") == nil
                && context.arguments.value("retries") == nil
                && context.arguments.value("low-level-retries") == nil) else {
                throw UsageError("--mirror, --retries and --low-level-retries go with --remote")
            }
            let folder = try remote.map { try mirror(for: $0, context: context) } ?? context.arguments.positionals[0]
            if remote != nil {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            }
            // Before the store is opened: opening creates it, and a store inside the folder must never be made.
            try AnnotationStore.checkSyncLocation(store: context.storePath, folder: folder)
            let store = try context.openStore(.create, content: .none)
            let given = try Keys.recipients(context)
            if context.arguments.flag("plain") && (!given.isEmpty || context.arguments.flag("encrypt")) {
                throw UsageError("give --recipient or --encrypt, or --plain, not both")
            }
            let encrypt: Bool? = context.arguments.flag("encrypt") ? true
                : context.arguments.flag("plain") ? false : nil
            let recipients: [AgeRecipient]? = context.arguments.flag("plain") ? [] : given.isEmpty ? nil : given
            let report: SyncReport
            var transfer: RcloneTransfer?
            if let remote {
                let rclone = try RcloneTransfer(
                    remote: remote, retries: try context.arguments.integer("retries") ?? 3,
                    lowLevelRetries: try context.arguments.integer("low-level-retries") ?? 10,
                    ownDevices: { [store] in [store.deviceID] })
                transfer = rclone
                report = try store.sync(mirror: folder, through: rclone, compact: context.arguments.flag("compact"),
                                        acceptFuture: context.arguments.flag("accept-future"),
                                        recipients: recipients, identities: try Keys.syncIdentities(context),
                                        encrypt: encrypt)
            } else {
                report = try store.sync(folder: folder, compact: context.arguments.flag("compact"),
                                        acceptFuture: context.arguments.flag("accept-future"),
                                        recipients: recipients, identities: try Keys.syncIdentities(context),
                                        encrypt: encrypt)
            }
            if context.json {
                var value = json(report)
                if let transfer, case .object(var object) = value {
                    object["remote"] = remoteJSON(transfer, mirror: folder)
                    value = .object(object)
                }
                try Output.print(value, to: context.console)
                try refuseHeldDeletions(report, context: context, folder: remote ?? folder)
                return
            }
            for line in text(report, names: try store.deviceNames(), join: context.suggested("device join FILE")) {
                context.console.out(line)
            }
            if let transfer {
                context.console.out("\(transfer.remote) (mirror \(folder)): received "
                    + "\(Output.count(transfer.received.files, "file")) (\(Output.count(Int(transfer.received.bytes), "byte"))), "
                    + "sent \(Output.count(transfer.sent.files, "file")) (\(Output.count(Int(transfer.sent.bytes), "byte"))), "
                    + "removed \(Output.count(transfer.removed, "file")).")
            }
            if report.held > 0 {
                let retry = context.suggested("sync \(Output.shellQuoted(folder)) --accept-future")
                for line in HeldOutput.lines(try store.quarantinedChanges(), now: Timestamp.nowMilliseconds(),
                                             retry: retry, release: context.suggested("quarantine --release")) {
                    context.console.out(line)
                }
            }
            try refuseHeldDeletions(report, context: context, folder: remote ?? folder)
        })

    /// Fails the command (exit 1) when the round held segments that would delete most of the notes, naming the
    /// command that lets them through: the rest of the round is done, and those are looked at again next round.
    static func refuseHeldDeletions(_ report: SyncReport, context: Context, folder: String) throws {
        guard !report.heldForDeletion.isEmpty else { return }
        let source = context.arguments.value("remote").map { "--remote \(Output.shellQuoted($0))" }
            ?? Output.shellQuoted(folder)
        throw ToolError("\(Output.count(report.heldForDeletion.count, "segment")) held: merging "
            + (report.heldForDeletion.count == 1 ? "it" : "them") + " would delete more than half of this store's "
            + "notes (see 'held:' above), so nothing of "
            + (report.heldForDeletion.count == 1 ? "it" : "them") + " was merged. If those deletions are wanted, "
            + "run: \(context.suggested("sync \(source) --allow-mass-delete"))")
    }

    /// The mirror of `remote`: `--mirror DIR`, else beside the store, named after the remote
    /// (`user.db.mirror-s3_bucket_marginalia`).
    static func mirror(for remote: String, context: Context) throws -> String {
        if let given = context.arguments.value("mirror") { return given }
        let safe = String(remote.map { $0.isLetter || $0.isNumber || "._-".contains($0) ? $0 : "_" }.prefix(80))
        return "\(context.storePath).mirror-\(safe)"
    }

    /// What the transfers of a remote round moved, for `--json`.
    static func remoteJSON(_ transfer: RcloneTransfer, mirror: String) -> JSONValue {
        func traffic(_ traffic: RcloneTransfer.Traffic) -> JSONValue {
            .object(JSONObject([("files", .int(Int64(traffic.files))), ("bytes", .int(traffic.bytes))]))
        }
        return .object(JSONObject([
            ("remote", .string(transfer.remote)), ("mirror", .string(mirror)),
            ("received", traffic(transfer.received)), ("sent", traffic(transfer.sent)),
            ("removed", .int(Int64(transfer.removed))),
        ]))
    }
}
