import Foundation
import MarginaliaTestSupport
import Testing

/// The brake on mass deletion: a sync segment or an import that would delete more than half of the live notes (and
/// more than 50) writes nothing, says how many and by which device, and goes through with --allow-mass-delete.
@Suite(.serialized) struct MassDeletionCLITests {
    /// The ids of the live annotations of `store`.
    static func live(_ workspace: CLIWorkspace, _ store: String) throws -> [String] {
        let text = try workspace.ok(["--store", store, "list", "--json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        return rows.compactMap { $0["id"] as? String }
    }

    /// A laptop with 70 notes and a phone admitted to its roster holding them, and the phone's device id; the phone
    /// then deletes 56 of them (80%) and syncs.
    static func phoneDeletesMost(_ workspace: CLIWorkspace, folder: String) throws -> (phone: String, id: String) {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for index in 0..<70 { try workspace.ok(["note", "mai-am-un-singur-dor.1", "nota \(index)"]) }
        try workspace.ok(["sync", folder])
        let phone = try workspace.newStore("phone.db")
        try workspace.admit(phone, by: workspace.store, folder: folder)
        try workspace.ok(["--store", phone, "sync", folder])
        let ids = try live(workspace, phone)
        #expect(ids.count == 70)
        for id in ids.prefix(56) { try workspace.ok(["--store", phone, "delete", id]) }
        try workspace.ok(["--store", phone, "sync", folder])
        let device = try workspace.ok(["--store", phone, "device"])
        let id = try #require(device.split(separator: "\n").first { $0.hasPrefix("device ") }?
            .split(separator: " ").last.map(String.init))
        return (phone, id)
    }

    @Test func aSegmentDeletingEightyPercentOfTheNotesIsHeldUntilLetThrough() throws {
        let workspace = try CLIWorkspace()
        let folder = workspace.path("Sync")
        let (_, phoneID) = try Self.phoneDeletesMost(workspace, folder: folder)
        let log = try workspace.ok(["log", "--json"])
        for _ in 0..<2 {
            let held = try workspace.run(["sync", folder])
            #expect(held.status == 1, "\(held.stdout)\(held.stderr)")
            #expect(held.stdout.contains("held: devices/\(phoneID)/"), "\(held.stdout)")
            #expect(held.stdout.contains("would delete 56 of the 70 live annotations (56 by device \(phoneID))"),
                    "\(held.stdout)")
            #expect(held.stderr.contains("--allow-mass-delete") && !held.stdout.contains("damaged"),
                    "\(held.stderr)")
            #expect(try Self.live(workspace, workspace.store).count == 70)
            #expect(try workspace.ok(["log", "--json"]) == log)
        }
        let json = try workspace.run(["--json", "sync", folder])
        #expect(json.status == 1 && json.stdout.contains("\"heldForDeletion\":[{"), "\(json.stdout)")
        let through = try workspace.run(["sync", folder, "--allow-mass-delete"])
        #expect(through.status == 0, "\(through.stderr)")
        #expect(try Self.live(workspace, workspace.store).count == 14)
        #expect(try workspace.ok(["verify"]).hasPrefix("ok"))
    }

    @Test func anImportDeletingMostNotesWritesNothingUntilLetThrough() throws {
        let workspace = try CLIWorkspace()
        let (phone, phoneID) = try Self.phoneDeletesMost(workspace, folder: workspace.path("Sync"))
        let archive = workspace.path("phone.jsonl.gz")
        try workspace.ok(["--store", phone, "export", archive])
        // The laptop never synced the deletions: the phone's archive would delete 56 of its 70 notes.
        let before = try workspace.bytes(workspace.store)
        for dryRun in [true, false] {
            let refused = try workspace.run(["import", archive] + (dryRun ? ["--dry-run"] : []))
            #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
            #expect(refused.stderr.contains("would delete 56 of the 70 live annotations (56 by device \(phoneID))")
                && refused.stderr.contains("--allow-mass-delete"), "\(refused.stderr)")
            #expect(try workspace.bytes(workspace.store) == before)
        }
        try workspace.ok(["import", archive, "--allow-mass-delete"])
        #expect(try Self.live(workspace, workspace.store).count == 14)
    }
}
