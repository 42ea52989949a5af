import Foundation
import MarginaliaTestSupport
import Testing

/// A restore replaces what a store holds, not who it is: a store restored over itself keeps its device id, its name
/// and its place in the roster through its next sync, and takes back from the folder what it wrote there after the
/// backup; where there was no store, the restored one is a new device, and says so.
@Suite struct RestoreIdentityCLITests {
    /// The id and name `devices --json` gives the store's own device.
    static func ownDevice(_ workspace: CLIWorkspace, _ store: String) throws -> (id: String, name: String?) {
        let text = try workspace.ok(["--store", store, "devices", "--json"])
        let devices = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        let own = try #require(devices.first { $0["thisDevice"] as? Bool == true }, "\(text)")
        return (try #require(own["id"] as? String), own["name"] as? String)
    }

    @Test func restoreThenSyncKeepsTheDeviceItsNameAndItsRoster() throws {
        let workspace = try CLIWorkspace()
        let folder = workspace.path("Sync")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let laptop = workspace.store
        let phone = try workspace.newStore("phone.db")
        try workspace.ok(["device", "name", "laptop"])
        try workspace.ok(["note", "mai-am-un-singur-dor.1", "before the backup"])
        try workspace.ok(["sync", folder])
        try workspace.ok(["--store", phone, "init"])
        try workspace.admit(phone, by: laptop, folder: folder)
        try workspace.ok(["--store", phone, "sync", folder])
        let backup = workspace.path("backup.jsonl.gz")
        try workspace.ok(["backup", backup])
        try workspace.ok(["note", "mai-am-un-singur-dor.2", "after the backup"])
        try workspace.ok(["sync", folder])
        let before = try Self.ownDevice(workspace, laptop)

        let restored = try workspace.ok(["restore", backup])
        #expect(restored.contains("This store is still device laptop (\(before.id))"), "\(restored)")
        let round = try workspace.run(["sync", folder])
        #expect(round.status == 0, "\(round.stderr)")
        #expect(!round.stdout.contains("new device id") && !round.stderr.contains("copy"), "\(round.stdout)")
        let after = try Self.ownDevice(workspace, laptop)
        #expect(after.id == before.id && after.name == "laptop")
        // What it wrote after the backup comes back from the folder; the phone goes on reading it.
        #expect(try workspace.ok(["list", "--json"]).contains("after the backup"))
        let phoneRound = try workspace.run(["--store", phone, "sync", folder])
        #expect(phoneRound.status == 0 && !phoneRound.stdout.contains("refused"), "\(phoneRound.stdout)")
        let phoneSees = try workspace.ok(["--store", phone, "devices"])
        #expect(phoneSees.contains("laptop"), "\(phoneSees)")
        #expect(try workspace.ok(["--store", phone, "list", "--json"]).contains("after the backup"))
        // A second round changes nothing and takes no new id.
        let again = try workspace.ok(["sync", folder])
        #expect(try Self.ownDevice(workspace, laptop).id == before.id, "\(again)")
    }

    @Test func aBackupOfAnotherDeviceRestoredOverAStoreKeepsTheStoresDevice() throws {
        let workspace = try CLIWorkspace()
        let other = try workspace.newStore("other.db")
        try workspace.ok(["--store", other, "init"])
        try workspace.ok(["--store", other, "note", "mai-am-un-singur-dor.1", "from the other device"])
        let backup = workspace.path("other.jsonl.gz")
        try workspace.ok(["--store", other, "backup", backup])
        try workspace.ok(["device", "name", "laptop"])
        let before = try Self.ownDevice(workspace, workspace.store)
        let otherID = try Self.ownDevice(workspace, other).id

        let restored = try workspace.ok(["restore", backup])
        #expect(restored.contains("This store is still device laptop (\(before.id))"), "\(restored)")
        #expect(restored.contains("the backup was made by device \(otherID)"), "\(restored)")
        #expect(try Self.ownDevice(workspace, workspace.store).id == before.id)
        let json = try workspace.ok(["--store", workspace.path("third.db"), "restore", backup, "--json"])
        #expect(json.contains("\"keptDevice\":false"), "\(json)")
    }

    @Test func aRestoreWhereThereWasNoStoreIsANewDevice() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["note", "mai-am-un-singur-dor.1", "a note"])
        let backup = workspace.path("backup.jsonl.gz")
        try workspace.ok(["backup", backup])
        let original = try Self.ownDevice(workspace, workspace.store).id
        let elsewhere = workspace.path("elsewhere.db")
        let restored = try workspace.ok(["--store", elsewhere, "restore", backup])
        let device = try workspace.ok(["--store", elsewhere, "device"])
        let fresh = try #require(device.split(separator: "\n").first { $0.hasPrefix("device ") }?
            .split(separator: " ").dropFirst().first.map(String.init), "\(device)")
        #expect(fresh != original)
        #expect(restored.contains("This store is a new device, \(fresh)"), "\(restored)")
    }
}
