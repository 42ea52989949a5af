import Foundation
import MarginaliaTestSupport
import Testing

/// Where changes came from survives a backup and a restore.
@Suite struct ProvenanceCLITests {
    @Test func aKindleImportIsStillListedAfterABackupAndARestore() throws {
        let workspace = try CLIWorkspace()
        let clippings = CLIWorkspace.samples.appendingPathComponent("my-clippings.txt").path
        try workspace.ok(["import", clippings])
        try workspace.ok(["note", "mai-am-un-singur-dor.2", "made here"])
        let backup = workspace.path("backup.jsonl.gz")
        try workspace.ok(["backup", backup])
        let restored = try workspace.run(["restore", backup])
        #expect(restored.status == 0, "\(restored.stderr)")
        let imports = try workspace.ok(["imports"]).split(separator: "\n").map(String.init)
        #expect(imports.count == 2)
        #expect(imports[0].hasPrefix("#1  ") && imports[0].contains("  import  \(clippings)  "), "\(imports)")
        #expect(imports[1].contains("  restore  \(backup)  ") && imports[1].contains("1 new"), "\(imports)")
        // The Kindle changes still name the Kindle import as where they came from.
        let log = try JSONSerialization.jsonObject(with: Data(try workspace.ok(["--json", "log"]).utf8)) as? [[String: Any]]
        let kindle = (log ?? []).filter { $0["device"] as? String == "import-kindle" }
        #expect(!kindle.isEmpty)
        for change in kindle {
            #expect((change["source"] as? [String: Any])?["kind"] as? String == "import")
        }
        #expect(try workspace.ok(["devices"]).contains("Kindle import"))
    }
}
