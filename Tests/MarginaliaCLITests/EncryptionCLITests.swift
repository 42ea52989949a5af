import Foundation
import MarginaliaTestSupport
import Testing

/// Whether the age tools from Debian are installed (the tests that check files against them are skipped otherwise).
let hasAge = FileManager.default.isExecutableFile(atPath: "/usr/bin/age")
    && FileManager.default.isExecutableFile(atPath: "/usr/bin/age-keygen")

/// Encrypted backups and archives through the binary, checked against the `age` tool itself.
@Suite struct EncryptionCLITests {
    /// A store with a note and a tag, and an identity made by age-keygen; returns the key file and its recipient.
    static func storeAndKey(_ workspace: CLIWorkspace) throws -> (key: String, recipient: String) {
        try workspace.ok(["note", "mai-am-un-singur-dor.2", "a private thought", "--tag", "secret-tag"])
        let key = workspace.path("key.txt")
        let made = try ChildProcess("/usr/bin/age-keygen", ["-o", key]).run()
        #expect(made.status == 0)
        let recipient = try #require(made.stderr.split(separator: " ").last).trimmingCharacters(in: .newlines)
        #expect(recipient.hasPrefix("age1"))
        return (key, recipient)
    }

    /// Runs a shell pipeline in the workspace's environment.
    static func shell(_ workspace: CLIWorkspace, _ script: String) throws -> ChildProcess.Result {
        try ChildProcess("/bin/sh", ["-c", script], environment: workspace.environment()).run()
    }

    @Test(.enabled(if: hasAge))
    func aBackupEncryptedToAnAgeKeygenRecipientIsReadByAgeAndZcat() throws {
        let workspace = try CLIWorkspace()
        let (key, recipient) = try Self.storeAndKey(workspace)
        let backup = workspace.path("b.age")
        let made = try workspace.run(["backup", backup, "--recipient", recipient])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.contains("verified, encrypted (age)"))
        let encrypted = try workspace.bytes(backup)
        #expect(encrypted.starts(with: Array("age-encryption.org/v1\n".utf8)))
        for secret in ["a private thought", "secret-tag", "changeId"] {
            #expect(encrypted.range(of: Data(secret.utf8)) == nil, "\(secret) is in the encrypted file")
        }
        // Only a private temporary directory was used: nothing is left beside the backup or in $TMPDIR.
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.path("tmp")).isEmpty)
        let plain = try Self.shell(workspace, "age -d -i '\(key)' '\(backup)' | zcat")
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout.hasPrefix("{\"type\":\"header\",\"format\":\"marginalia-archive\""))
        #expect(plain.stdout.contains("a private thought"))
        // The decrypted archive is an archive: verify reads it.
        let decrypted = workspace.path("plain.jsonl.gz")
        #expect(try Self.shell(workspace, "age -d -i '\(key)' -o '\(decrypted)' '\(backup)'").status == 0)
        #expect(try workspace.run(["verify", decrypted]).status == 0)
        // A nightly job: the same command again replaces its own earlier encrypted backup, with the new note.
        try workspace.ok(["note", "mai-am-un-singur-dor.2", "a later thought"])
        let again = try workspace.run(["backup", backup, "--recipient", recipient])
        #expect(again.status == 0, "\(again.stderr)")
        let later = try Self.shell(workspace, "age -d -i '\(key)' '\(backup)' | zcat")
        #expect(later.stdout.contains("a later thought"))
        // A plain file is still never replaced by a backup.
        let notes = workspace.path("notes.txt")
        try Data("mine\n".utf8).write(to: URL(fileURLWithPath: notes))
        let refused = try workspace.run(["backup", notes, "--recipient", recipient])
        #expect(refused.status == 1 && refused.stderr.contains("will not write over"), "\(refused.stderr)")
    }

    @Test(.enabled(if: hasAge))
    func anArchiveEncryptedByAgeImportsWithTheIdentity() throws {
        let workspace = try CLIWorkspace()
        let (key, recipient) = try Self.storeAndKey(workspace)
        let file = workspace.path("p.age")
        let piped = try Self.shell(workspace, "marginalia export - | age -r \(recipient) > '\(file)'")
        #expect(piped.status == 0, "\(piped.stderr)")
        let other = try workspace.newStore("other.db")
        let imported = try workspace.run(["--store", other, "import", file, "--identity", key])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.hasPrefix("Imported 1 change: 1 new"))
        #expect(try workspace.ok(["--store", other, "list"]).contains("a private thought"))
        let verified = try workspace.run(["verify", file, "--identity", key])
        #expect(verified.status == 0, "\(verified.stderr)")
    }

    @Test(.enabled(if: hasAge))
    func aWrongKeyAFlippedByteOrACutFileIsRefusedAndTheStoreLeftAsItWas() throws {
        let workspace = try CLIWorkspace()
        let (key, recipient) = try Self.storeAndKey(workspace)
        let backup = workspace.path("b.age")
        try workspace.ok(["backup", backup, "--recipient", recipient])
        let other = try workspace.newStore("other.db")
        try workspace.ok(["--store", other, "bookmark", "mai-am-un-singur-dor.1"])
        let before = try workspace.bytes(other)

        let missing = try workspace.run(["--store", other, "import", backup])
        #expect(missing.status == 65)
        #expect(missing.stderr == "Error: \(backup): the file is encrypted (age), and no identity or passphrase was "
            + "given; it opens only with the age identity it was encrypted to (--identity FILE) or its passphrase "
            + "(--passphrase)\n")

        let wrongKey = workspace.path("wrong.txt")
        #expect(try ChildProcess("/usr/bin/age-keygen", ["-o", wrongKey]).run().status == 0)
        let wrong = try workspace.run(["--store", other, "restore", backup, "--identity", wrongKey])
        #expect(wrong.status == 65)
        #expect(wrong.stderr.hasPrefix("Error: \(backup): encrypted file: no identity matches the file's recipients"))

        var flipped = try workspace.bytes(backup)
        flipped[flipped.count - 20] ^= 0x01
        let flippedPath = workspace.path("flipped.age")
        try flipped.write(to: URL(fileURLWithPath: flippedPath))
        let altered = try workspace.run(["--store", other, "import", flippedPath, "--identity", key])
        #expect(altered.status == 65)
        #expect(altered.stderr.contains("encrypted file: payload chunk 0 failed authentication"))

        let cutPath = workspace.path("cut.age")
        try workspace.bytes(backup).prefix(150).write(to: URL(fileURLWithPath: cutPath))
        let cut = try workspace.run(["--store", other, "import", cutPath, "--identity", key])
        #expect(cut.status == 65)
        #expect(cut.stderr.hasPrefix("Error: \(cutPath): encrypted file: "))

        #expect(try workspace.bytes(other) == before)
        #expect(try workspace.ok(["--store", other, "list"]).contains("bookmark"))
        #expect(try !workspace.ok(["--store", other, "list"]).contains("a private thought"))
    }

    @Test(.enabled(if: hasAge))
    func keyNewMakesAPrivateIdentityThatAgeAndKeyShowAgreeOn() throws {
        let workspace = try CLIWorkspace()
        let made = try workspace.run(["key", "new"])
        #expect(made.status == 0, "\(made.stderr)")
        let recipient = made.stdout.trimmingCharacters(in: .newlines)
        #expect(recipient.hasPrefix("age1"))
        let path = workspace.path("config/marginalia/identity.txt")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        #expect(try workspace.ok(["key", "show"]) == recipient)
        let fromAge = try ChildProcess("/usr/bin/age-keygen", ["-y", path]).run()
        #expect(fromAge.stdout.trimmingCharacters(in: .newlines) == recipient)
        let text = try workspace.bytes(path)
        let again = try workspace.run(["key", "new"])
        #expect(again.status == 65)
        #expect(again.stderr.contains("an identity exists already at \(path); it is kept"))
        #expect(try workspace.bytes(path) == text)

        // The default identity opens what was encrypted to its recipient, with no option.
        try workspace.ok(["note", "mai-am-un-singur-dor.2", "kept"])
        let backup = workspace.path("b.age")
        try workspace.ok(["backup", backup, "--recipient", recipient])
        let restored = try workspace.run(["--store", workspace.path("restored.db"), "restore", backup])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try workspace.ok(["--store", workspace.path("restored.db"), "list"]).contains("kept"))
    }

    /// `age` asks for a passphrase on its terminal only: `script` gives it one, fed from a pipe.
    @Test(.enabled(if: hasAge && CLIWorkspace.hasScript))
    func passphraseFilesGoBothWaysBetweenThisToolAndAge() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["note", "mai-am-un-singur-dor.2", "under a passphrase"])
        let ours = workspace.path("ours.age")
        try workspace.ok(["backup", ours, "--passphrase"], environment: ["MARGINALIA_PASSPHRASE": "correct horse"])
        let plain = workspace.path("ours.jsonl.gz")
        let decrypted = try Self.shell(workspace, "(sleep 1; printf 'correct horse\\n') | "
            + "script -qec \"age -d -o '\(plain)' '\(ours)'\" /dev/null")
        #expect(decrypted.status == 0, "\(decrypted.stdout)")
        #expect(try workspace.run(["verify", plain]).status == 0)

        let theirs = workspace.path("theirs.age")
        let encrypted = try Self.shell(workspace, "(sleep 1; printf 'correct horse\\n'; sleep 1; "
            + "printf 'correct horse\\n') | script -qec \"age -p -o '\(theirs)' '\(plain)'\" /dev/null")
        #expect(encrypted.status == 0, "\(encrypted.stdout)")
        let verified = try workspace.run(["verify", theirs, "--passphrase"],
                                         environment: ["MARGINALIA_PASSPHRASE": "correct horse"])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.hasPrefix("ok: \(theirs) holds 1 change"))
    }

    @Test func aPassphraseBackupIsRestoredWithThePassphraseOnly() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["note", "mai-am-un-singur-dor.2", "under a passphrase"])
        let backup = workspace.path("b.age")
        let made = try workspace.run(["backup", backup, "--passphrase"],
                                     environment: ["MARGINALIA_PASSPHRASE": "correct horse"])
        #expect(made.status == 0, "\(made.stderr)")
        let restoredStore = workspace.path("restored.db")
        let wrong = try workspace.run(["--store", restoredStore, "restore", backup, "--passphrase"],
                                      environment: ["MARGINALIA_PASSPHRASE": "wrong horse"])
        #expect(wrong.status == 65)
        #expect(wrong.stderr.hasPrefix("Error: \(backup): encrypted file: the passphrase is wrong; "))
        #expect(!FileManager.default.fileExists(atPath: restoredStore))
        let restored = try workspace.run(["--store", restoredStore, "restore", backup, "--passphrase"],
                                         environment: ["MARGINALIA_PASSPHRASE": "correct horse"])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try workspace.ok(["--store", restoredStore, "list"]).contains("under a passphrase"))
        let both = try workspace.run(["backup", backup, "--passphrase", "--recipient", "age1x"])
        #expect(both.status == 64)
    }

    /// Two stores of one roster sync encrypted through a folder that holds no note, tag or change record in any
    /// file, and stock age recovers the laptop's segment in two steps with the identity whose recipient was given to
    /// `--recipient`: it opens the laptop's keys file, whose epoch identity opens the segment. The phone needs no
    /// identity: its device key opens the laptop's epoch keys (before rosters both stores shared one identity). A
    /// store that joined and is not admitted yet, with no identity, is told each segment is encrypted to a key it
    /// does not hold and merges nothing; given the identity (`--identity`) it reads what the laptop wrapped to it,
    /// and still not the phone's segment, which was not.
    @Test(.enabled(if: hasAge))
    func twoStoresOfARosterSyncEncryptedThroughAFolderThatHoldsNoPlaintextAndAgeRecoversIt() throws {
        let workspace = try CLIWorkspace()
        let recipient = try workspace.ok(["key", "new"])
        let key = workspace.path("config/marginalia/identity.txt")
        let noIdentity = ["XDG_CONFIG_HOME": workspace.path("elsewhere")]
        let folder = workspace.path("sync")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let phone = try workspace.newStore("phone.db")
        // Admitted before either makes a change: the admission's rounds write roster files only, no plain segment.
        try workspace.admit(phone, by: workspace.store, folder: folder)
        let id = try workspace.ok(["note", "mai-am-un-singur-dor.2", "a private thought", "--tag", "secret-tag"])
        let first = try workspace.run(["sync", folder, "--recipient", recipient])
        #expect(first.status == 0, "\(first.stderr)")
        let lines = first.stdout.split(separator: "\n").map(String.init)
        let announced = try #require(lines.first { $0.hasPrefix("Segments are encrypted to ") })
        let epoch = String(announced.dropFirst("Segments are encrypted to ".count).dropLast())
        #expect(epoch.hasPrefix("age1") && epoch != recipient)
        let wrote = try #require(lines.first { $0.hasPrefix("Wrote devices/") })
        let segment = String(wrote.dropFirst("Wrote ".count).prefix { $0 != ":" })
        // The phone, with no identity of its own, turns encryption on and reads the laptop's segment.
        let second = try workspace.run(["--store", phone, "sync", folder, "--encrypt"], environment: noIdentity)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("1 segment, 1 new change") && !second.stdout.contains("refused"))
        try workspace.ok(["--store", phone, "edit", id, "--note", "edited on the phone"])
        try workspace.ok(["--store", phone, "sync", folder], environment: noIdentity)
        try workspace.ok(["sync", folder])
        #expect(try workspace.ok(["show", id]).contains("edited on the phone"))
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder).filter { file in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: folder + "/" + file, isDirectory: &isDirectory)
                && !isDirectory.boolValue
        }
        let segments = files.filter { $0.hasSuffix(".jsonl.gz") }
        let keysFiles = files.filter { ($0 as NSString).lastPathComponent.hasPrefix("keys-") && $0.hasSuffix(".age") }
        #expect(segments.count == 2 && segments.contains(segment) && keysFiles.count == 2)
        for file in files {
            let bytes = try workspace.bytes(folder + "/" + file)
            if segments.contains(file) || keysFiles.contains(file) {
                #expect(bytes.starts(with: Array("age-encryption.org/v1\n".utf8)), "\(file) is not age")
            }
            for secret in ["a private thought", "edited on the phone", "secret-tag", "changeId", "mai-am-un"] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) in \(file)")
            }
        }
        // Stock age, in two steps: the keys file of the segment's writer, then the segment.
        let laptopDirectory = (segment as NSString).deletingLastPathComponent
        let keysFile = try #require(keysFiles.first { $0.hasPrefix(laptopDirectory + "/") })
        let epochs = workspace.path("epochs.txt")
        let opened = try Self.shell(workspace, "age -d -i '\(key)' -o '\(epochs)' '\(folder)/\(keysFile)'")
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(try ChildProcess("/usr/bin/age-keygen", ["-y", epochs]).run().stdout == epoch + "\n")
        let recovered = try Self.shell(workspace, "age -d -i '\(epochs)' '\(folder)/\(segment)' | gunzip")
        #expect(recovered.status == 0, "\(recovered.stderr)")
        #expect(recovered.stdout.hasPrefix("{\"type\":\"header\",\"format\":\"marginalia-sync-segment\""))
        #expect(recovered.stdout.contains("a private thought"))
        // A store that joined and is not admitted, with no identity: refused, nothing merged.
        let stranger = try workspace.newStore("stranger.db")
        try workspace.ok(["--store", stranger, "device", "join", try workspace.invite(by: workspace.store)])
        let refused = try workspace.run(["--store", stranger, "sync", folder], environment: noIdentity)
        #expect(refused.status == 0, "\(refused.stderr)")
        let unopened = ": encrypted to a key this store does not hold"
        for written in segments {
            #expect(refused.stdout.contains("refused: \(written)\(unopened)"), "\(refused.stdout)")
        }
        #expect(try workspace.ok(["--store", stranger, "list"]).isEmpty)
        // Given the identity, it opens the laptop's keys file, wrapped to the recipient the laptop was given.
        let keyed = try workspace.run(["--store", stranger, "sync", folder, "--identity", key], environment: noIdentity)
        #expect(keyed.status == 0, "\(keyed.stderr)")
        let phoneSegment = try #require(segments.first { $0 != segment })
        #expect(!keyed.stdout.contains("refused: \(segment)"), "\(keyed.stdout)")
        #expect(keyed.stdout.contains("refused: \(phoneSegment)\(unopened)"), "\(keyed.stdout)")
        let listed = try workspace.ok(["--store", stranger, "list"])
        #expect(listed.contains("a private thought") && !listed.contains("edited on the phone"))
    }
}
