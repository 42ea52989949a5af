import Foundation
import Testing

/// After an app update, every read command answers on a store of an older schema: upgraded in place when it can
/// be written, read from a copy upgraded in memory when it cannot (issue: the app's timeline).
@Suite struct OlderStoreCLITests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// Each kept fixture: its folder, its store file and its schema version.
    static let stores: [(folder: String, file: String, version: Int)] = [
        ("schema-1", "user-schema1.db", 1), ("schema-3", "user-schema3.db", 3), ("schema-4", "user-schema4.db", 4),
        ("schema-5", "user-schema5.db", 5), ("schema-6", "user-schema6.db", 6),
        ("schema-7", "user-schema7.db", 7), ("schema-8", "user-schema8.db", 8),
    ]
    static let current = 10

    /// A workspace whose store is a copy of the fixture `file` of `folder`.
    static func workspace(_ folder: String, _ file: String) throws -> CLIWorkspace {
        let workspace = try CLIWorkspace(sample: "eminescu-2026.1.json")
        try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent("\(folder)/\(file)").path,
                                         toPath: workspace.store)
        return workspace
    }

    @Test(arguments: stores.map(\.folder))
    func everyReadCommandAnswersOnAnOlderStore(folder: String) throws {
        let (_, file, version) = try #require(Self.stores.first { $0.folder == folder })
        let workspace = try Self.workspace(folder, file)
        let commands: [[String]] = [["list"], ["verify"], ["log"], ["export", workspace.path("notes.jsonl.gz")],
                                    ["diff", "--since", "2020-01-01"], ["imports"], ["quarantine"],
                                    ["search", "--notes", "a"], ["anchors"], ["list", "--as-of", "2030-01-01"]]
        var upgradeNotes: [String] = []
        for command in commands {
            let result = try workspace.run(command)
            #expect(result.status == 0, "\(command) on schema \(version): \(result.stderr)")
            upgradeNotes += result.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("Upgraded") }
        }
        // Said once, by the first read; the store is then of the current schema.
        let expected = version < Self.current
            ? ["Upgraded the store \(workspace.store) from schema \(version) to \(Self.current)"] : []
        #expect(upgradeNotes == expected)
        #expect(try workspace.ok(["verify"]).hasPrefix("ok: "))
    }

    @Test(.enabled(if: OutputAndReadOnlyTests.unprivileged != nil,
                   "needs setpriv and a 'nobody' user to take away the right to write"))
    func anOlderStoreThatCannotBeWrittenIsReadFromACopyUpgradedInMemory() throws {
        let workspace = try Self.workspace("schema-1", "user-schema1.db")
        let output = workspace.path("out")
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o777])
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: workspace.store)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: workspace.content)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: workspace.directory.path)
        defer {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: workspace.directory.path)
        }
        let before = try workspace.bytes(workspace.store)
        let (list, listed) = try OutputAndReadOnlyTests.runUnprivileged(workspace, ["list"], output: output + "/list")
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stderr.contains("is of schema 1 and cannot be upgraded here (it cannot be written); reading a "
            + "copy upgraded in memory"))
        #expect(!listed.isEmpty)
        let (verify, verified) = try OutputAndReadOnlyTests.runUnprivileged(workspace, ["verify"],
                                                                            output: output + "/verify")
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verified.hasPrefix("ok: "))
        #expect(try workspace.bytes(workspace.store) == before, "the file is left as it was")
    }
}
