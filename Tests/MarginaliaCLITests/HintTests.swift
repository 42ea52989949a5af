import Foundation
import MarginaliaTestSupport
import Testing

/// A command a message suggests runs as printed: it carries the `--store` and `--content` the user gave.
@Suite struct HintTests {
    /// The commands a message suggests ("…, run: marginalia …" to the end of its line).
    static func suggestions(in text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            line.range(of: "run: marginalia ").map { String(line[$0.lowerBound...].dropFirst(5)) }
        }
    }

    @Test func theAnchorsHintRunsAsPrintedOnTheContentGiven() throws {
        let workspace = try CLIWorkspace()
        let edition2 = workspace.path("poezii 2.db")
        try workspace.ok(["content", "build", CLIWorkspace.samples.appendingPathComponent("tiny-2.json").path,
                          "-o", edition2])
        let store = try workspace.newStore("my notes.db")
        try workspace.ok(["--store", store, "highlight", "mai-am-un-singur-dor.3", "--quote", "lăsaţi"])
        // No MARGINALIA_CONTENT: the content is what the command line gives.
        let checked = try workspace.run(["--store", store, "--content", edition2, "anchors"],
                                        environment: ["MARGINALIA_CONTENT": ""])
        #expect(checked.status == 0, "\(checked.stderr)")
        let hints = Self.suggestions(in: checked.stderr)
        #expect(hints.count == 1, "\(checked.stderr)")
        let hint = try #require(hints.first)
        #expect(hint.contains("--content") && hint.contains("--store"))
        let ran = try ChildProcess("/bin/sh", ["-c", hint],
                                   environment: workspace.environment(["MARGINALIA_CONTENT": ""])).run()
        #expect(ran.status == 0, "\(hint): \(ran.stderr)")
        #expect(String(decoding: ran.output, as: UTF8.self).contains("on edition tiny-2"))
    }
}

/// The views a reader expects: a whole document, and every reading position.
@Suite struct ReaderViewTests {
    @Test func readTakesAWholeDocumentAndPositionAllListsEveryPosition() throws {
        let workspace = try CLIWorkspace()
        let passages = try workspace.ok(["content", "passages", "mai-am-un-singur-dor"])
            .split(separator: "\n").count
        let whole = try workspace.run(["read", "mai-am-un-singur-dor", "--json"])
        #expect(whole.status == 0, "\(whole.stderr)")
        let read = try #require(try whole.json() as? [String: Any])
        #expect((read["passages"] as? [Any])?.count == passages)
        try workspace.ok(["bookmark", "mai-am-un-singur-dor.1"])
        #expect(try workspace.run(["position", "--all"]).stderr == "No reading positions\n")
        try workspace.ok(["position", "mai-am-un-singur-dor", "mai-am-un-singur-dor.2"])
        let all = try workspace.ok(["position", "--all"])
        #expect(all.hasPrefix("mai-am-un-singur-dor") && all.contains("mai-am-un-singur-dor.2"))
        #expect(try workspace.run(["position", "--all", "x"]).status == 64)
        #expect(try workspace.run(["position"]).status == 64)
    }
}

/// A restore says what it sets aside: the changes the store holds and the archive lacks.
@Suite struct RestoreSetAsideTests {
    @Test func aDryRunNamesTheChangesARestoreWouldSetAside() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["note", "mai-am-un-singur-dor.1", "întâi"])
        let backup = workspace.path("backup.jsonl.gz")
        try workspace.ok(["backup", backup])
        try workspace.ok(["note", "mai-am-un-singur-dor.2", "după"])
        try workspace.ok(["bookmark", "mai-am-un-singur-dor.3"])
        let dry = try workspace.ok(["restore", backup, "--dry-run"])
        #expect(dry.contains("Would set aside 2 changes this store holds and the archive lacks"), "\(dry)")
        let json = try #require(try workspace.run(["--json", "restore", backup, "--dry-run"]).json() as? [String: Any])
        #expect(json["setAside"] as? Int == 2)
        try workspace.ok(["restore", backup])
        #expect(!(try workspace.ok(["list"]).contains("după")))
    }
}

/// A write on a read-only mount says so in words, not in SQLite's.
@Suite struct ReadOnlyMountTests {
    @Test(.enabled(if: Tmpfs.isMountable, "mounting a read-only file system needs root"))
    func aWriteOnAReadOnlyMountSaysSoAndChangesNothing() throws {
        let workspace = try CLIWorkspace()
        let mount = workspace.path("mount")
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        #expect(try Tmpfs.mount(mount, kilobytes: 4096).status == 0)
        defer { Tmpfs.unmount(mount) }
        let store = mount + "/user.db"
        try workspace.ok(["--store", store, "init"])
        try workspace.ok(["--store", store, "note", "mai-am-un-singur-dor.1", "întâi"])
        #expect(try ChildProcess("/bin/mount", ["-o", "remount,ro", mount]).run().status == 0)
        let refused = try workspace.run(["--store", store, "note", "mai-am-un-singur-dor.2", "a doua"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("read-only") && !refused.stderr.contains("SQLite error"), "\(refused.stderr)")
        #expect(try workspace.ok(["--store", store, "list"]).contains("întâi"))
    }
}
