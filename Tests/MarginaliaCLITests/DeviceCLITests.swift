import Foundation
import MarginaliaTestSupport
import Testing

/// Named devices through the binary: who changed a note is said by name, on every store the name reached.
@Suite struct DeviceCLITests {
    @Test func namesGivenOnTwoStoresShowInLogAndHistoryOnBothAfterASync() throws {
        let workspace = try CLIWorkspace()
        let laptop = workspace.store
        let phone = try workspace.newStore("phone.db")
        let folder = workspace.path("sync")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(try workspace.ok(["device", "name", "laptop"]).hasSuffix("is now called laptop"))
        let id = try workspace.ok(["note", "mai-am-un-singur-dor.2", "din laptop"])
        try workspace.ok(["--store", phone, "device", "name", "phone"])
        try workspace.admit(phone, by: laptop, folder: folder)
        try workspace.ok(["--store", phone, "sync", folder])
        try workspace.ok(["--store", phone, "edit", id, "--note", "din telefon"])
        try workspace.ok(["--store", phone, "sync", folder])
        try workspace.ok(["sync", folder])
        for store in [laptop, phone] {
            let history = try workspace.ok(["--store", store, "history", id])
            #expect(history.contains("(by laptop)"), "\(history)")
            #expect(history.contains("(by phone)"), "\(history)")
            #expect(!history.contains("(device "), "\(history)")
            let log = try workspace.ok(["--store", store, "log"])
            #expect(log.contains("name “laptop”  (by laptop)"))
            #expect(log.contains("name “phone”  (by phone)"))
            let devices = try workspace.ok(["--store", store, "devices"])
            #expect(devices.split(separator: "\n").count == 2)
            #expect(devices.contains("laptop") && devices.contains("phone"))
            #expect(try workspace.run(["--store", store, "verify"]).status == 0)
        }
        let own = try JSONSerialization.jsonObject(with: Data(try workspace.ok(["--json", "device"]).utf8))
        #expect((own as? [String: Any])?["name"] as? String == "laptop")
    }

    @Test func aConflictNamesTheDeviceWhoseEditLost() throws {
        let workspace = try CLIWorkspace()
        let phone = try workspace.newStore("phone.db")
        let folder = workspace.path("sync")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try workspace.ok(["device", "name", "laptop"])
        try workspace.ok(["--store", phone, "device", "name", "phone"])
        let id = try workspace.ok(["note", "mai-am-un-singur-dor.2", "first"])
        try workspace.admit(phone, by: workspace.store, folder: folder)
        try workspace.ok(["--store", phone, "sync", folder])
        try workspace.ok(["--store", phone, "edit", id, "--note", "older, from the phone"])
        try workspace.ok(["edit", id, "--note", "newer, on the laptop"])
        try workspace.ok(["--store", phone, "sync", folder])
        let round = try workspace.ok(["sync", folder])
        #expect(round.contains("by phone, still in history)"), "\(round)")
        #expect(try workspace.ok(["show", id]).contains("newer, on the laptop"))
    }

    @Test func aNameWithControlCharactersIsRefusedAndNothingWritten() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["init"])
        let refused = try workspace.run(["device", "name", "evil\u{1B}[2J"])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("field \"name\""))
        #expect(try workspace.ok(["log"]).isEmpty)
    }

    @Test func anImportsDeviceIsNamedForItsFormat() throws {
        let workspace = try CLIWorkspace()
        let imported = try workspace.run(["import", CLIWorkspace.samples.appendingPathComponent("my-clippings.txt").path])
        #expect(imported.status == 0, "\(imported.stderr)")
        let devices = try workspace.ok(["devices"])
        #expect(devices.contains("Kindle import"), "\(devices)")
    }
}
