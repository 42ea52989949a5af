import Foundation
import MarginaliaTestSupport
import Testing

/// A full or closed stdout is an error exit, not a crash; read commands work where the store cannot be written.
@Suite struct OutputAndReadOnlyTests {
    /// Runs the binary with `stdout` as its standard output (stderr collected), as `user` when given.
    static func run(_ workspace: CLIWorkspace, _ arguments: [String], stdout: FileHandle,
                    prefix: [String] = [], environment extra: [String: String] = [:]) throws -> CLIResult {
        let command = prefix + [CLIWorkspace.binary.path] + arguments
        return try ChildProcess(command[0], Array(command.dropFirst()), environment: workspace.environment(extra),
                                standardOutput: stdout).run()
    }

    static let fullDiskMessage = "Error: cannot write to standard output: No space left on device; the output is "
        + "incomplete, but the command ran to its end (any change it reported is saved)\n"

    @Test(.enabled(if: FileManager.default.isWritableFile(atPath: "/dev/full")))
    func aFullStdoutAfterAWriteExits74AndTheWriteIsCommittedOnce() throws {
        let workspace = try CLIWorkspace()
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let note = try Self.run(workspace, ["note", "mai-am-un-singur-dor.1", "kept once"], stdout: full)
        #expect(note.status == 74)
        #expect(note.stderr.hasSuffix(Self.fullDiskMessage))
        let list = try workspace.run(["list", "--json"])
        #expect((try list.json() as? [[String: Any]])?.map { $0["note"] as? String } == ["kept once"])
        // Read commands too: the error, not a crash.
        let listed = try Self.run(workspace, ["list"], stdout: full)
        #expect(listed.status == 74)
        #expect(listed.stderr == Self.fullDiskMessage)
        let exported = try Self.run(workspace, ["export", "-"], stdout: full)
        #expect(exported.status == 74)
        #expect(exported.stderr == "Error: cannot write stdout: No space left on device\n")
    }

    @Test func aClosedStdoutExits74() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["note", "mai-am-un-singur-dor.1", "a note"])
        // The reading end is closed before the program starts, so its first write fails with EPIPE.
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        let listed = try Self.run(workspace, ["list"], stdout: pipe.fileHandleForWriting)
        // Quiet, as Unix tools are when their reader goes away; the status says so.
        #expect(listed.status == 74)
        #expect(listed.stderr == "")
        let note = try Self.run(workspace, ["note", "mai-am-un-singur-dor.2", "second"], stdout: pipe.fileHandleForWriting)
        #expect(note.status == 74)
        #expect(try workspace.ok(["list"]).components(separatedBy: "\n").filter { $0.contains("note:") }.count == 2)
    }

    /// How to run the binary without the privileges that bypass permission bits: through setpriv as `nobody`
    /// when the tests run as root, directly otherwise; nil when neither is possible (found once).
    static let unprivileged: [String]? = {
        guard geteuid() == 0 else { return [] }
        let setpriv = "/usr/bin/setpriv"
        guard FileManager.default.isExecutableFile(atPath: setpriv), getpwnam("nobody") != nil else { return nil }
        return [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    }()

    /// Runs as the unprivileged user, with stdout collected through a file the user may write.
    static func runUnprivileged(_ workspace: CLIWorkspace, _ arguments: [String], output: String) throws
        -> (CLIResult, String)
    {
        _ = FileManager.default.createFile(atPath: output, contents: nil, attributes: [.posixPermissions: 0o666])
        let handle = try #require(FileHandle(forWritingAtPath: output))
        let result = try run(workspace, arguments, stdout: handle, prefix: unprivileged ?? [])
        try handle.close()
        return (result, String(decoding: try Data(contentsOf: URL(fileURLWithPath: output)), as: UTF8.self))
    }

    /// Why the tests that drop privileges are skipped where they cannot.
    static let cannotDropPrivileges: Comment =
        "running as root without setpriv or a 'nobody' user, so permissions cannot be tested"

    @Test(.enabled(if: OutputAndReadOnlyTests.unprivileged != nil, OutputAndReadOnlyTests.cannotDropPrivileges))
    func readCommandsWorkOnAStoreInAReadOnlyDirectoryAsAnUnprivilegedUser() throws {
        let prefix = try #require(Self.unprivileged)
        let workspace = try CLIWorkspace()
        let id = try workspace.ok(["note", "mai-am-un-singur-dor.2", "read from read-only media"])
        // The writer was the last connection: it removed the -wal and -shm on closing.
        #expect(!FileManager.default.fileExists(atPath: workspace.store + "-wal"))
        // The store's directory (and the store) read-only for whoever runs the commands; the parent traversable.
        let output = workspace.path("out")
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o777])
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: workspace.directory.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: workspace.store)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: workspace.content)
        let storeDirectory = workspace.directory.path
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: storeDirectory)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: storeDirectory) }
        let before = try workspace.bytes(workspace.store)
        let (list, listed) = try Self.runUnprivileged(workspace, ["list"], output: output + "/list")
        #expect(list.status == 0, "\(list.stderr)")
        #expect(listed.contains("note: read from read-only media"))
        let (verify, verified) = try Self.runUnprivileged(workspace, ["verify"], output: output + "/verify")
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verified.hasPrefix("ok: 1 change replays to 1 annotation and 0 reading positions\nhash chain holds: "
            + "head seq 1, digest "))
        let (log, logged) = try Self.runUnprivileged(workspace, ["log"], output: output + "/log")
        #expect(log.status == 0, "\(log.stderr)")
        #expect(logged.contains(String(id.prefix(8))))
        let (export, _) = try Self.runUnprivileged(workspace, ["export", "-"], output: output + "/x.gz")
        #expect(export.status == 0, "\(export.stderr)")
        #expect(try workspace.bytes(output + "/x.gz").starts(with: [0x1F, 0x8B]))
        #expect(try workspace.bytes(workspace.store) == before)
        #expect(!FileManager.default.fileExists(atPath: workspace.store + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: workspace.store + "-shm"))
        // What was exported imports into a store of its own.
        let copy = try workspace.newStore("out/copy.db")
        let imported = try workspace.run(["--store", copy, "import", output + "/x.gz"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(prefix.isEmpty == (geteuid() != 0))
        // With a -wal and a -shm left by a reader that could write the directory, SQLite reads through them.
        if geteuid() == 0 {
            try workspace.ok(["list"])
            #expect(FileManager.default.fileExists(atPath: workspace.store + "-shm"))
            let (again, listedAgain) = try Self.runUnprivileged(workspace, ["list"], output: output + "/again")
            #expect(again.status == 0, "\(again.stderr)")
            #expect(listedAgain == listed)
        }
    }

    @Test(.enabled(if: OutputAndReadOnlyTests.unprivileged != nil, OutputAndReadOnlyTests.cannotDropPrivileges))
    func aWalWithoutShmInAReadOnlyDirectorySaysSQLiteNeedsTheShm() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["note", "mai-am-un-singur-dor.2", "n"])
        _ = FileManager.default.createFile(atPath: workspace.store + "-wal", contents: Data())
        let output = workspace.path("out")
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o777])
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: workspace.store)
        let storeDirectory = workspace.directory.path
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: storeDirectory)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: storeDirectory) }
        let (list, _) = try Self.runUnprivileged(workspace, ["list"], output: output + "/list")
        #expect(list.status == 1)
        #expect(list.stderr == "Error: cannot read the store \(workspace.store): its directory is not writable, and "
            + "SQLite needs the WAL index \(workspace.store)-shm to read the changes in \(workspace.store)-wal, but it "
            + "does not exist and cannot be created there; open the store once where its directory is writable, or "
            + "copy it with its -wal file to such a place\n")
    }

    @Test(.enabled(if: OutputAndReadOnlyTests.unprivileged != nil, OutputAndReadOnlyTests.cannotDropPrivileges))
    func aStoreThatCannotBeReadIsAnIOErrorNotAForeignFile() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["note", "mai-am-un-singur-dor.2", "n"])
        let output = workspace.path("out")
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o777])
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: workspace.store)
        let (list, _) = try Self.runUnprivileged(workspace, ["list"], output: output + "/list")
        #expect(list.status == 1)
        #expect(list.stderr == "Error: cannot read the store \(workspace.store): open: Permission denied\n")
    }
}
