import Foundation
import Marginalia

/// `device invite`, `device join`, `device revoke`, `device roster` and `key recovery`: which devices may speak in
/// the sync folders this store syncs through.
enum RosterCommands {
    static let invite = Command(
        spec: CommandSpec(
            name: "device invite", summary: "Write an invitation for a new device to join this store's roster.",
            discussion: """
                A store that belongs to a roster signs everything it writes into a sync folder and takes only what \
                a device of its roster signed. This writes FILE (readable by you only; it is refused if FILE \
                exists): carry it to the new device (a USB stick, a message to yourself) and run 'marginalia device \
                join FILE' there. The new device asks to be admitted at its next sync; this device admits it at its \
                own next sync and prints its fingerprint, to compare with the one 'device join' printed. The \
                invitation admits one device, within a week; it holds no key. The first invitation founds the \
                roster when this store belongs to none.
                """,
            arguments: [.init(name: "FILE", help: "Where to write the invitation.")],
            examples: ["marginalia device invite invitation.json"]),
        run: { context in
            let path = context.arguments.positionals[0]
            let store = try context.openStore(.create, content: .none)
            let invitation = try store.invite()
            try writePrivately(try invitation.encoded(), to: path)
            if context.json {
                try Output.print(.object(JSONObject([
                    ("file", .string(path)), ("roster", .string(invitation.roster)),
                    ("device", .string(invitation.from)), ("fingerprint", .string(invitation.fingerprint)),
                    ("expires", .string(invitation.expires)),
                ])), to: context.console)
                return
            }
            context.console.out("Wrote \(path): an invitation to roster \(invitation.roster), until "
                + "\(invitation.expires).")
            context.console.out("This device: \(invitation.from), fingerprint \(invitation.fingerprint).")
            context.console.out("On the new device: marginalia device join \(Output.shellQuoted(path)); then sync "
                + "there and here.")
        })

    static let join = Command(
        spec: CommandSpec(
            name: "device join", summary: "Join the roster of an invitation another device wrote.",
            discussion: """
                Takes the roster from FILE (checking every signature in it), makes this device's keys, and asks to \
                be admitted at the next sync: the inviting device admits it at its own next sync. Compare the \
                inviting device's fingerprint printed here with the one 'device invite' printed, and this device's \
                with the one the inviting device prints when it admits it. A store that already speaks in another \
                roster with other devices cannot join a second.
                """,
            arguments: [.init(name: "FILE", help: "The invitation 'device invite' wrote.")],
            options: [.init(name: "name", value: "NAME",
                            help: "The name this device is admitted under and called by ('device name'); "
                                + "without it, the name it already has.")],
            examples: ["mkdir -p ~/Sync/marginalia && marginalia --store phone.db init && "
                           + "marginalia --store phone.db device join invitation.json "
                           + "--name phone && marginalia --store phone.db sync ~/Sync/marginalia"]),
        run: { context in
            let path = context.arguments.positionals[0]
            let bytes = try readInvitation(path)
            let invitation = try DeviceInvitation(bytes: bytes, file: path)
            let store = try context.openStore(.create, content: .none)
            let name = context.arguments.value("name")
            let roster = try store.join(invitation, name: name)
            if let name, try store.deviceNames()[store.deviceID] != name { try store.nameDevice(name) }
            let own = try store.deviceKeys()
            context.console.out("Joined roster \(roster.id) (\(Output.count(roster.activeDevices.count, "device"))).")
            context.console.out("Inviting device: \(invitation.from), fingerprint \(invitation.fingerprint).")
            context.console.out("This device: \(store.deviceID), fingerprint \(own.fingerprint).")
            context.console.out("Run sync here, then on the inviting device: it admits this one.")
        })

    static let revoke = Command(
        spec: CommandSpec(
            name: "device revoke", summary: "Revoke a lost or retired device: nothing it writes is taken any more.",
            discussion: """
                Records, signed by this device, that DEVICE (its name, id or a unique start of its id) speaks no \
                more in the roster; the next sync carries it to the others, and every device then refuses what \
                DEVICE writes, from then on and forever. The devices DEVICE admitted stay admitted. A store that \
                encrypts starts a new epoch at its next round: what it writes afterwards DEVICE cannot read.
                """,
            arguments: [.init(name: "DEVICE", help: "The device's name, id, or a unique start of its id.")],
            examples: ["marginalia sync ~/Sync/marginalia && marginalia device revoke phone"]),
        run: { context in
            let store = try context.openStore(.readWrite, content: .none)
            guard let roster = try store.roster() else {
                throw ToolError("this store belongs to no roster: there is no device to revoke "
                    + "(a roster is founded by '\(context.suggested("device invite FILE"))')")
            }
            let device = try resolve(context.arguments.positionals[0], in: roster, names: try store.deviceNames())
            guard device != store.deviceID else {
                throw ToolError("\(context.arguments.positionals[0]) is this device; revoke it from another one")
            }
            let after = try store.revokeDevice(device)
            context.console.out("Revoked \(device). Epoch \(after.epoch); "
                + "\(Output.count(after.activeDevices.count, "device")) remain. Sync to carry it to the others.")
        })

    static let roster = Command(
        spec: CommandSpec(
            name: "device roster",
            summary: "List the devices of this store's roster: admitted, revoked, with fingerprints.",
            discussion: """
                One line per device of the roster: its id, name, fingerprint, who admitted it and whether it may \
                speak (admitted) or not (revoked, or admitted by a device since revoked). Reads only.
                """,
            examples: ["marginalia device roster", "marginalia --json device roster"]),
        run: { context in
            let store = try context.openStore(.readOnly, content: .none)
            guard let roster = try store.roster() else {
                context.console.out("This store belongs to no roster yet; 'device invite FILE' founds one.")
                return
            }
            let members = roster.members.values.sorted { $0.device < $1.device }
            if context.json {
                try Output.print(.object(JSONObject([
                    ("roster", .string(roster.id)), ("founder", .string(roster.founder)),
                    ("epoch", .int(Int64(roster.epoch))),
                    ("devices", .array(members.map { member in
                        .object(JSONObject([
                            ("id", .string(member.device)), ("name", member.name.map(JSONValue.string) ?? .null),
                            ("fingerprint", .string(member.keys.fingerprint)),
                            ("admittedBy", .string(member.admittedBy)), ("active", .bool(member.isActive)),
                            ("revokedBy", member.revokedBy.map(JSONValue.string) ?? .null),
                        ]))
                    })),
                ])), to: context.console)
                return
            }
            context.console.out("roster \(roster.id), epoch \(roster.epoch)")
            for member in members {
                var line = "\(member.device)  \(member.name ?? "(no name)")  \(member.keys.fingerprint)  "
                line += member.isActive ? "admitted" : "refused: \(roster.refusal(of: member.device) ?? "")"
                if member.device == store.deviceID { line += " (this device)" }
                context.console.out(line)
            }
        })

    static let recovery = Command(
        spec: CommandSpec(
            name: "key recovery", summary: "Make a paper recovery key for encrypted sync; print it once.",
            discussion: """
                Makes an age identity, records its recipient in the roster (signed by this device), and prints the \
                identity on stdout: write it down and keep it offline. It is not stored anywhere; with it, stock \
                age opens every epoch key a device of the roster wrote after this, and so every encrypted segment \
                (see the README, "Encrypted sync").
                """,
            examples: ["marginalia key recovery > recovery.txt"]),
        run: { context in
            let store = try context.openStore(.create, content: .none)
            let identity = try store.addRecoveryKey()
            context.console.out("# marginalia recovery key for roster \(try store.roster()?.id ?? "")")
            context.console.out("# public key: \(identity.recipient.encoded)")
            context.console.out(identity.encoded)
            context.console.err("Recorded its recipient in the roster. Keep the key above offline: it is shown "
                + "once and stored nowhere.")
        })

    /// A device of `roster` by id, unique start of an id, or name: the one it was admitted under, or the one the
    /// log gives it (`names`, by id; `device name` after the admission).
    static func resolve(_ text: String, in roster: Roster, names: [String: String] = [:]) throws -> String {
        if roster.members[text] != nil { return text }
        let byName = roster.members.values.filter { $0.name == text || names[$0.device] == text }.map(\.device)
        let byPrefix = roster.members.keys.filter { $0.hasPrefix(text) }
        let matches = Set(byName.isEmpty ? byPrefix : byName)
        guard matches.count == 1, let device = matches.first else {
            throw ToolError(matches.isEmpty ? "no device \(text) in the roster (see 'marginalia device roster')"
                : "\(text) names \(matches.count) devices of the roster; give more of the id")
        }
        return device
    }

    /// Writes `bytes` to a new file at `path`, readable by its owner only; refuses a file already there.
    static func writePrivately(_ bytes: [UInt8], to path: String) throws {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw ToolError("will not write over \(path): it exists; give another file")
        }
        let file = try FileSink(path: path, exclusive: true, permissions: 0o600)
        try bytes.withUnsafeBytes { try file.write($0) }
        try file.sync()
        try file.close()
    }

    /// An invitation file's bytes, at most 1 MiB.
    static func readInvitation(_ path: String) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ToolError("cannot read \(path): missing, or not readable")
        }
        defer { try? handle.close() }
        let data = try handle.read(upToCount: 1 << 20 + 1) ?? Data()
        guard data.count <= 1 << 20 else { throw InputError("\(path) is larger than an invitation (1 MiB)") }
        return Array(data)
    }
}
