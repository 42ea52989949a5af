import Foundation
import MarginaliaTestSupport
import Testing

@Suite struct ArchiveCLITests {
    @Test func exportImportBackupRestoreAndVerifyThroughTheBinary() throws {
        let first = try CLIWorkspace()
        let id = try first.ok(["highlight", "mai-am-un-singur-dor.1", "--tag", "dor"])
        try first.ok(["edit", id, "--note", "first machine"])
        try first.ok(["position", "mai-am-un-singur-dor", "mai-am-un-singur-dor.3"])
        let archive = first.path("first.jsonl.gz")
        let exported = try first.run(["export", archive])
        #expect(exported.status == 0)
        #expect(exported.stderr == "Exported 3 changes, 1 annotation and 1 reading position to \(archive)\n")
        let verified = try first.run(["verify", archive])
        #expect(verified.status == 0)
        #expect(verified.stdout.hasPrefix("ok: \(archive) holds 3 changes, 1 annotation and 1 reading position"))

        let second = try CLIWorkspace()
        let dryRun = try #require(try second.run(["import", archive, "--dry-run", "--json"]).json() as? [String: Any])
        #expect(dryRun["newChanges"] as? Int == 3 && dryRun["annotationsCreated"] as? Int == 1)
        // A dry run writes nothing, not even a new store.
        #expect(!FileManager.default.fileExists(atPath: second.store))
        let imported = try #require(try second.run(["import", archive, "--json"]).json() as? [String: Any])
        #expect(imported["newChanges"] as? Int == 3)
        let again = try #require(try second.run(["import", archive, "--json"]).json() as? [String: Any])
        #expect(again["newChanges"] as? Int == 0 && again["duplicates"] as? Int == 3)
        #expect(try second.run(["list", "--json", "--deleted"]).stdout
            == first.run(["list", "--json", "--deleted"]).stdout)

        let backup = first.path("backup.jsonl.gz")
        let backedUp = try first.run(["backup", backup])
        #expect(backedUp.status == 0)
        #expect(backedUp.stdout.contains("verified"))
        let restoredStore = first.path("restored.db")
        let restored = try first.run(["--store", restoredStore, "restore", backup])
        #expect(restored.status == 0)
        #expect(try first.run(["--store", restoredStore, "list", "--json", "--deleted"]).stdout
            == first.run(["list", "--json", "--deleted"]).stdout)
        let devices = try [first.store, restoredStore].map { store in
            try #require(
                try first.run(["--store", store, "init", "--json"]).json() as? [String: Any]
            )["deviceId"] as? String
        }
        #expect(devices[0] != devices[1])
    }

    @Test func exportToStdoutIsAGzipArchive() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["bookmark", "mai-am-un-singur-dor.4", "--title", "aici"])
        let exported = try ChildProcess(CLIWorkspace.binary, ["export", "-"],
                                        environment: ["MARGINALIA_STORE": workspace.store,
                                                      "HOME": workspace.directory.path]).run()
        #expect(exported.status == 0)
        #expect(Array(exported.output.prefix(2)) == [0x1F, 0x8B])
        let file = workspace.path("stdout.jsonl.gz")
        try exported.output.write(to: URL(fileURLWithPath: file))
        #expect(try workspace.run(["verify", file]).status == 0)
    }
}
