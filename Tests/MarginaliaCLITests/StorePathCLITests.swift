import Foundation
import MarginaliaTestSupport
import Testing

/// A mistyped `--store` never becomes a new, empty store: only `init` (and `restore`) create a store at a path the
/// command line gives; the default store (`$MARGINALIA_STORE`, the data directory) is created by the first write.
@Suite struct StorePathCLITests {
    @Test func aWriteToAStorePathThatDoesNotExistIsRefusedNamingThePathAndInit() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["note", "mai-am-un-singur-dor.1", "in the real store"])
        let typo = workspace.path("usr.db")
        for arguments in [["note", "mai-am-un-singur-dor.2", "lost?"], ["bookmark", "mai-am-un-singur-dor.2"],
                          ["device", "name", "laptop"]] {
            let refused = try workspace.run(["--store", typo] + arguments)
            #expect(refused.status == 1, "\(arguments): \(refused.stderr)")
            #expect(refused.stderr.contains("no store at \(typo)") && refused.stderr.contains("init"),
                    "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: typo), "\(arguments) created \(typo)")
        }
        // The command the message gives makes it; the write then goes through.
        try workspace.ok(["--store", typo, "init"])
        try workspace.ok(["--store", typo, "note", "mai-am-un-singur-dor.2", "now here"])
        #expect(try workspace.ok(["--store", typo, "list"]).contains("now here"))
    }

    @Test func theDefaultStoreIsStillCreatedByTheFirstWrite() throws {
        let workspace = try CLIWorkspace()
        #expect(!FileManager.default.fileExists(atPath: workspace.store))
        try workspace.ok(["note", "mai-am-un-singur-dor.1", "first"])
        #expect(FileManager.default.fileExists(atPath: workspace.store))
        // Named with --store, the default store is still the default one.
        let again = try CLIWorkspace()
        try again.ok(["--store", again.store, "note", "mai-am-un-singur-dor.1", "first"])
        #expect(FileManager.default.fileExists(atPath: again.store))
    }
}
