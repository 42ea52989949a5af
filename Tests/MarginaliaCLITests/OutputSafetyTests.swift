import Foundation
import Marginalia
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `content build`, `export` and `backup` write over nothing they were not asked to replace, through the binary.
@Suite struct OutputSafetyTests {
    private static func mode(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    @Test func theToolsOwnCommandsRefuseToWriteOverAStoreItsLogAFIFOOrADevice() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["highlight", "mai-am-un-singur-dor.1", "--note", "kept"])
        let other = try workspace.newStore("other.db")
        try workspace.ok(["--store", other, "init"])
        let link = workspace.path("link.db")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: workspace.store)
        let fifo = workspace.path("pipe")
        #expect(mkfifo(fifo, 0o600) == 0)
        let source = CLIWorkspace.samples.appendingPathComponent("tiny.json").path
        let store = workspace.store
        let cases: [([String], String)] = [
            (["content", "build", source, "--output", store, "--force"],
             "Error: will not write over \(store): it is the store itself; choose another file\n"),
            (["content", "build", source, "--output", other, "--force"],
             "Error: will not write over \(other): it is a Marginalia store; choose another file\n"),
            (["export", other, "--force"],
             "Error: will not write over \(other): it is a Marginalia store; choose another file\n"),
            (["backup", other], "Error: will not write over \(other): it is a Marginalia store; choose another file\n"),
            (["--store", link, "export", store + "-wal", "--force"],
             "Error: will not write over \(store)-wal: it is the store's write-ahead log; choose another file\n"),
            (["export", fifo, "--force"], "Error: will not write over \(fifo): it is a FIFO (named pipe); to stream "
                + "an archive use 'export -' and a redirection\n"),
            (["backup", "/dev/full"], "Error: will not write over /dev/full: it is a device; to stream an archive "
                + "use 'export -' and a redirection\n"),
            (["content", "build", source, "--output", workspace.content],
             "Error: will not write over \(workspace.content): it is a Marginalia content database; pass --force to "
                + "rebuild it\n"),
        ]
        let storeBytes = try workspace.bytes(store)
        let otherBytes = try workspace.bytes(other)
        for (arguments, message) in cases {
            let result = try workspace.run(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr == message, "\(arguments)")
        }
        #expect(try workspace.bytes(store) == storeBytes)
        #expect(try workspace.bytes(other) == otherBytes)
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)
        #expect(try workspace.ok(["list", "--json"]).contains("\"kept\""))
        try workspace.ok(["content", "build", source, "--output", workspace.content, "--force"])
    }

    @Test func aPlainFileIsReplacedOnlyWithForceAndABackupReplacesAnEarlierBackup() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["highlight", "mai-am-un-singur-dor.1"])
        let notes = workspace.path("notes.txt")
        try Data("mine".utf8).write(to: URL(fileURLWithPath: notes))
        let refused = try workspace.run(["export", notes])
        #expect(refused.status == 1)
        #expect(refused.stderr == "Error: will not write over \(notes): it is an existing file; pass --force to "
            + "replace it\n")
        // backup has no --force: the advice is what it accepts.
        let refusedBackup = try workspace.run(["backup", notes])
        #expect(refusedBackup.status == 1)
        #expect(refusedBackup.stderr
            == "Error: will not write over \(notes): it is an existing file; choose another file\n")
        #expect(try workspace.bytes(notes) == Data("mine".utf8))
        try workspace.ok(["export", notes, "--force"])
        let backup = workspace.path("backup.jsonl.gz")
        try workspace.ok(["backup", backup])
        try workspace.ok(["highlight", "mai-am-un-singur-dor.2"])
        #expect(try workspace.ok(["backup", backup]).hasPrefix("Backed up 2 changes"))
        // A symbolic link to the backup is written through and stays a link.
        let link = workspace.path("latest.jsonl.gz")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "backup.jsonl.gz")
        try workspace.ok(["highlight", "mai-am-un-singur-dor.3"])
        try workspace.ok(["backup", link])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "backup.jsonl.gz")
        #expect(try workspace.ok(["verify", backup]).contains("3 changes"))
    }

    @Test func theDataDirectoryStoreLogAndBackupsAreOwnerOnlyUnderUmask022() throws {
        umask(0o022)
        let workspace = try CLIWorkspace()
        let data = workspace.path("data")
        let store = data + "/marginalia/user.db"
        try workspace.ok(["init"], environment: ["MARGINALIA_STORE": ""])
        try workspace.ok(["highlight", "mai-am-un-singur-dor.1"], environment: ["MARGINALIA_STORE": ""])
        #expect(Self.mode(data) == 0o700)
        #expect(Self.mode(data + "/marginalia") == 0o700)
        #expect(Self.mode(store) == 0o600)
        // The log and shared-memory file exist while a connection is open.
        do {
            let open = try AnnotationStore.open(path: store, access: .readWrite)
            try open.attachContent(path: workspace.content)
            try open.createAnnotation(.bookmark, at: AnchorRequest(passage: "mai-am-un-singur-dor.2"))
            #expect(Self.mode(store + "-wal") == 0o600)
            #expect(Self.mode(store + "-shm") == 0o600)
        }
        let backup = workspace.path("backup.jsonl.gz")
        let export = workspace.path("notes.jsonl.gz")
        try workspace.ok(["backup", backup], environment: ["MARGINALIA_STORE": ""])
        try workspace.ok(["export", export], environment: ["MARGINALIA_STORE": ""])
        #expect(Self.mode(backup) == 0o600)
        #expect(Self.mode(export) == 0o600)
        #expect(chmod(backup, 0o400) == 0)
        try workspace.ok(["backup", backup], environment: ["MARGINALIA_STORE": ""])
        #expect(Self.mode(backup) == 0o400)
    }
}
