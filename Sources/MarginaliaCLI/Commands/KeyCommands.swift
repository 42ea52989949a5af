import Foundation
import Marginalia

/// `key new` and `key show`: the age identity that encrypted backups and sync segments are opened with.
enum KeyCommands {
    static let new = Command(
        spec: CommandSpec(
            name: "key new", summary: "Make an age identity for encrypted backups and sync; print its recipient.",
            discussion: """
                Writes a new age X25519 identity to $XDG_CONFIG_HOME/marginalia/identity.txt (else \
                ~/.config/marginalia/identity.txt), readable by you only, in the format age-keygen writes, and prints \
                its recipient (age1…) on stdout: give it to 'backup --recipient', 'export --recipient' or 'sync \
                --recipient'. Commands that read an encrypted file use this identity unless given --identity. An \
                existing identity is never replaced: what was encrypted to it would be lost. Copy the file to each \
                of your devices (and somewhere safe): without it nothing encrypted to it can be read, by \
                marginalia or by age.
                """,
            options: [.init(name: "identity", value: "FILE", help: "Write the identity to FILE instead.")],
            examples: ["marginalia key new", "marginalia backup backup.jsonl.gz.age --recipient \"$(marginalia key show)\""]),
        run: { context in
            let path = context.arguments.value("identity") ?? Keys.identityPath(context)
            if FileManager.default.fileExists(atPath: path) {
                throw InputError("an identity exists already at \(path); it is kept (what was encrypted to it "
                    + "needs it). Its recipient: \(try Keys.identities(in: path).first?.recipient.encoded ?? "none")")
            }
            let identity = try AgeIdentity.generate()
            try PrivateFiles.createDirectories((path as NSString).deletingLastPathComponent)
            let file = try FileSink(path: path, exclusive: true, permissions: 0o600)
            try Array(identity.identityFileText(created: Date()).utf8).withUnsafeBytes { try file.write($0) }
            try file.sync()
            try file.close()
            context.console.out(identity.recipient.encoded)
            context.console.err("Made an age identity in \(path) (readable by you only); its recipient is above. "
                + "Copy the file to your other devices and keep a copy safe: without it nothing encrypted to it can "
                + "be read.")
        })

    static let show = Command(
        spec: CommandSpec(
            name: "key show", summary: "Print the recipient (age1…) of your age identity.",
            discussion: """
                Prints the recipient of each identity in the identity file ('key new' made it, or age-keygen), one \
                a line: the public half, safe to share; encrypting to it needs nothing secret.
                """,
            options: [.init(name: "identity", value: "FILE", help: "Read the identity from FILE instead.")],
            examples: ["marginalia key show"]),
        run: { context in
            let path = context.arguments.value("identity") ?? Keys.identityPath(context)
            guard FileManager.default.fileExists(atPath: path) else {
                throw InputError("no identity at \(path); make one with: \(context.suggested("key new"))")
            }
            for identity in try Keys.identities(in: path) { context.console.out(identity.recipient.encoded) }
        })
}
