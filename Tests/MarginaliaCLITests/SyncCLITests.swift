import Foundation
import Marginalia
import MarginaliaTestSupport
import Testing

/// `marginalia sync` through the built binary: two stores meet through one folder; refusals exit non-zero.
@Suite struct SyncCLITests {
    /// Every path under `folder`, directories too, with each file's bytes.
    static func contents(of folder: String) throws -> [String: Data] {
        var contents: [String: Data] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: folder) {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: "\(folder)/\(path)", isDirectory: &isDirectory)
            let url = URL(fileURLWithPath: "\(folder)/\(path)")
            contents[path] = try isDirectory.boolValue ? Data() : Data(contentsOf: url)
        }
        return contents
    }

    @Test func twoMachinesSyncThroughAFolder() throws {
        let workspace = try CLIWorkspace()
        let folder = workspace.path("Sync")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let phone = try workspace.newStore("phone.db")
        try workspace.ok(["note", "mai-am-un-singur-dor.1", "din laptop"])
        // The laptop invites the phone (founding its roster) and, at its first round, admits it.
        let first = try workspace.admit(phone, by: workspace.store, folder: folder)
        #expect(first.contains("Joined the folder") && first.contains("Wrote devices/"))
        let joined = try workspace.run(["--store", phone, "--json", "sync", folder])
        #expect(joined.status == 0, "\(joined.stderr)")
        let report = try #require(try joined.json() as? [String: Any])
        #expect(report["changesApplied"] as? Int == 1)
        #expect(try workspace.ok(["--store", phone, "list"]).contains("din laptop"))
        try workspace.ok(["--store", phone, "note", "mai-am-un-singur-dor.2", "din telefon"])
        try workspace.ok(["--store", phone, "sync", folder])
        try workspace.ok(["sync", folder])
        #expect(try workspace.ok(["list"]).contains("din telefon"))
        #expect(try workspace.ok(["sync", folder]).contains("Nothing new."))
        // Segments younger than an hour stay (the sync tools may still be carrying them); older, they are folded.
        try workspace.ok(["note", "mai-am-un-singur-dor.3", "încă una"])
        try workspace.ok(["sync", folder])
        #expect(try !workspace.ok(["sync", folder, "--compact"]).contains("Compacted"))
        if hasFaketime {
            let later = Timestamp.nowMilliseconds() + 2 * 3_600_000
            #expect(try workspace.ok(at: later, ["sync", folder, "--compact"]).stdout
                .contains("Compacted 2 segments into devices/"))
        }
    }

    @Test func aStoreOutsideTheFoldersRosterIsToldHowToJoinAndLeavesTheFolderAlone() throws {
        let workspace = try CLIWorkspace()
        let folder = workspace.path("Sync")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try workspace.ok(["note", "mai-am-un-singur-dor.1", "din laptop"])
        try workspace.ok(["sync", folder])
        // The laptop's first round founded the folder's roster: its id and the laptop's fingerprint, from the store.
        let laptop = try AnnotationStore.open(path: workspace.store, access: .readWrite)
        let roster = try #require(try laptop.roster())
        let fingerprint = try laptop.deviceKeys().fingerprint
        try laptop.close()
        let phone = try workspace.newStore("phone.db")
        try workspace.ok(["--store", phone, "note", "mai-am-un-singur-dor.2", "din telefon"])
        let before = try Self.contents(of: folder)
        let told = try workspace.run(["--store", phone, "sync", folder])
        #expect(told.status == 0 && told.stderr.isEmpty, "\(told.stderr)")
        #expect(told.stdout == """
            This folder belongs to roster \(roster.id), founded by device \(roster.founder) (fingerprint \
            \(fingerprint)), and this store is in no roster: nothing was read or written.
            To take part: run 'marginalia device invite FILE' on a device of that roster, carry FILE here and run \
            'marginalia --store \(phone) device join FILE', then sync here, then on that device.

            """)
        let again = try workspace.run(["--store", phone, "--json", "sync", folder])
        let json = try #require(try again.json() as? [String: Any])
        #expect(json["joinNeeded"] as? [String: String]
            == ["roster": roster.id, "founder": roster.founder, "founderFingerprint": fingerprint])
        #expect(json["changesApplied"] as? Int == 0 && json["written"] is NSNull)
        #expect(try Self.contents(of: folder) == before)
        #expect(try !workspace.ok(["--store", phone, "list"]).contains("din laptop"))
    }

    @Test func refusalsExitNonZeroAndLeaveTheFolderAlone() throws {
        let workspace = try CLIWorkspace()
        let folder = workspace.path("Sync")
        try FileManager.default.createDirectory(atPath: "\(folder)/inner", withIntermediateDirectories: true)
        try workspace.ok(["note", "mai-am-un-singur-dor.1", "x"])
        let inside = try workspace.run(["--store", "\(folder)/inner/user.db", "sync", folder])
        #expect(inside.status == 65 && inside.stderr.contains("inside the folder"))
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/marginalia-sync.json"))
        try Data(#"{"format":"marginalia-sync","formatVersion":9,"minReaderVersion":9}"#.utf8)
            .write(to: URL(fileURLWithPath: "\(folder)/marginalia-sync.json"))
        let newer = try workspace.run(["sync", folder])
        #expect(newer.status == 65 && newer.stderr.contains("newer version"))
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/devices"))
        let missing = try workspace.run(["sync", workspace.path("nowhere")])
        #expect(missing.status != 0 && missing.stderr.contains("no sync folder"))
        #expect(try workspace.run(["sync"]).status == 64)
    }

    @Test(.enabled(if: Tmpfs.isMountable, "mounting a read-only file system needs root"))
    func aFolderThisStoreCannotWriteInIsRefusedBeforeAnythingIsMerged() throws {
        let workspace = try CLIWorkspace()
        let folder = workspace.path("Sync")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(try Tmpfs.mount(folder, kilobytes: 1024).status == 0)
        defer { Tmpfs.unmount(folder) }
        let phone = try workspace.newStore("phone.db")
        try workspace.ok(["--store", phone, "note", "mai-am-un-singur-dor.1", "din telefon"])
        try workspace.ok(["--store", phone, "sync", folder])
        // The laptop joins the phone's roster; its first round in the folder is the one refused.
        try workspace.ok(["device", "join", try workspace.invite(by: phone)])
        #expect(try ChildProcess("/bin/mount", ["-o", "remount,ro", folder]).run().status == 0)
        try workspace.ok(["note", "mai-am-un-singur-dor.2", "din laptop"])
        let refused = try workspace.run(["sync", folder])
        #expect(refused.status != 0 && refused.stderr.contains("cannot be written")
                && refused.stderr.contains("nothing was merged"), "\(refused.stderr)")
        #expect(try !workspace.ok(["list"]).contains("din telefon"))
    }
}
