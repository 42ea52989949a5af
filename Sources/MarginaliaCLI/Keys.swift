import Foundation
import Marginalia

/// The age keys a command encrypts to or decrypts with: `--recipient`, `--passphrase`, `--identity`, and the
/// identity `marginalia key new` keeps in the private config directory.
enum Keys {
    /// The options of a command that writes an archive.
    static let encryptOptions: [CommandSpec.Option] = [
        .init(name: "recipient", value: "AGE1…",
              help: "Encrypt the archive to this age recipient (repeatable; e.g. the one 'marginalia key show' "
                  + "prints). The file is then an age file: 'age -d -i key.txt FILE | zcat' reads it.",
              repeatable: true),
        .init(name: "passphrase",
              help: "Encrypt the archive with a passphrase (age's scrypt), from $MARGINALIA_PASSPHRASE or asked "
                  + "on the terminal."),
    ]

    /// The options of a command that reads an archive.
    static let decryptOptions: [CommandSpec.Option] = [
        .init(name: "identity", value: "FILE",
              help: "The age identity file that opens an encrypted archive (default: the one 'marginalia key new' "
                  + "made, if any; a file from age-keygen works too)."),
        .init(name: "passphrase",
              help: "Open an encrypted archive with its passphrase, from $MARGINALIA_PASSPHRASE or asked on the "
                  + "terminal."),
    ]

    /// The default identity file: `$XDG_CONFIG_HOME/marginalia/identity.txt`.
    static func identityPath(_ context: Context) -> String {
        context.configDirectory() + "/marginalia/identity.txt"
    }

    /// How to encrypt what the command writes; nil for a plain file.
    static func encryption(_ context: Context) throws -> AgeKey? {
        let passphrase = context.arguments.flag("passphrase")
        if passphrase && !context.arguments.all("recipient").isEmpty {
            throw UsageError("give --recipient or --passphrase, not both: an age file encrypted with a passphrase "
                + "has no other recipient")
        }
        if passphrase { return .passphrase(try Self.passphrase(context, confirm: true)) }
        let recipients = try self.recipients(context)
        return recipients.isEmpty ? nil : .recipients(recipients)
    }

    /// The recipients of every `--recipient`, in order.
    /// - Throws: `UsageError` naming a value that is not an age recipient.
    static func recipients(_ context: Context) throws -> [AgeRecipient] {
        try context.arguments.all("recipient").map { text in
            do {
                return try AgeRecipient(parsing: text)
            } catch let error as MarginaliaError {
                throw UsageError("--recipient \(text): \(error)")
            }
        }
    }

    /// How to open the archive at `path` (already on disk) when it is encrypted; nil for a plain file or when no key
    /// is at hand (the reader then says the file is encrypted).
    static func decryption(for path: String, _ context: Context) throws -> AgeKey? {
        if context.arguments.flag("passphrase") {
            guard context.arguments.value("identity") == nil else {
                throw UsageError("give --identity or --passphrase, not both")
            }
            return isEncrypted(path) != false ? .passphrase(try Self.passphrase(context, confirm: false)) : nil
        }
        if context.arguments.value("identity") == nil, isEncrypted(path) == false { return nil }
        return try identities(context).map(AgeKey.identities)
    }

    /// The identities of `--identity FILE`, else of the default identity file when there is one; nil for neither.
    static func identities(_ context: Context) throws -> [AgeIdentity]? {
        if let file = context.arguments.value("identity") { return try identities(in: file, console: context.console) }
        let standard = identityPath(context)
        return FileManager.default.fileExists(atPath: standard)
            ? try identities(in: standard, console: context.console) : nil
    }

    /// The identities a sync round opens and authenticates segments with: `--identity FILE`, else the default
    /// identity when there is one, else none.
    static func syncIdentities(_ context: Context) throws -> [AgeIdentity] {
        try identities(context) ?? []
    }

    /// Whether the file at `path` starts as an age file does; nil when that cannot be known without consuming it
    /// (a pipe: its first bytes are the archive reader's).
    static func isEncrypted(_ path: String) -> Bool? {
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 64) else { return false }
        return AgeFormat.looksLikeAge(Array(head)) || AgeFormat.looksLikeArmoredAge(Array(head))
    }

    /// The largest identity file read: one holds a line or a few (age-keygen writes about 190 bytes per key).
    static let maxIdentityFileBytes = 64 * 1024

    /// The identities of the identity file at `path`, read as age reads one (comments, CRLF and a byte order mark
    /// allowed). A FIFO, a directory or a file over 64 KiB is refused before it is read; a file others may read is
    /// warned about on `console`.
    static func identities(in path: String, console: Console? = nil) throws -> [AgeIdentity] {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFREG else {
                throw InputError("the identity file \(path) is not a regular file (a directory, a FIFO or a device)")
            }
            guard info.st_size <= maxIdentityFileBytes else {
                throw InputError("the identity file \(path) is \(info.st_size) bytes: not an age identity file "
                    + "(one holds a few lines; at most \(maxIdentityFileBytes) bytes are read)")
            }
            if info.st_mode & 0o077 != 0 {
                console?.err("Warning: the identity file \(path) can be read by others (mode "
                    + String(info.st_mode & 0o777, radix: 8) + "); a secret key belongs in a file only its owner "
                    + "reads: chmod 600 \(Output.shellQuoted(path))")
            }
        }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw InputError("cannot read the identity file \(path): "
                + (FileManager.default.fileExists(atPath: path) ? "it is not UTF-8 text or not readable"
                    : "no such file"))
        }
        return try AgeIdentity.parseFile(text, file: path)
    }

    /// The passphrase: `$MARGINALIA_PASSPHRASE`, else asked on the terminal without echo (twice, to confirm, for
    /// a new file).
    static func passphrase(_ context: Context, confirm: Bool) throws -> String {
        if let given = context.environment["MARGINALIA_PASSPHRASE"], !given.isEmpty { return given }
        let first = try Terminal.askSecret("Passphrase: ")
        guard !first.isEmpty else { throw InputError("the passphrase is empty") }
        if confirm, try Terminal.askSecret("Passphrase again: ") != first {
            throw InputError("the two passphrases differ; nothing was written")
        }
        return first
    }
}
