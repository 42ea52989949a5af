import Foundation
import Testing
@testable import Marginalia

/// Only the devices of a roster speak: invitations admit, revocations silence, and what anyone else writes into the
/// folder is reported and left alone. Each attack here worked on folders without a roster (the same steps, run by
/// stores that wrote before rosters, took the forger's changes). A forger here is a store of a roster of its own,
/// founded elsewhere: a store in no roster writes nothing in a folder of another (`RosterDefaultTests`).
@Suite struct RosterSyncTests {
    typealias Setup = SyncTests.Setup

    /// A laptop that founded a roster and a phone it admitted, both through `setup.folder`.
    static func pair(_ setup: Setup) throws -> (laptop: AnnotationStore, phone: AnnotationStore) {
        let laptop = try setup.store("laptop")
        let phone = try setup.store("phone")
        try SyncRosters.admit(phone, by: laptop, folder: setup.folder)
        return (laptop, phone)
    }

    /// `SyncRosters.admit`, by the name the roster's tests know it.
    static func admit(_ store: AnnotationStore, by member: AnnotationStore, folder: String) throws {
        try SyncRosters.admit(store, by: member, folder: folder)
    }

    @Test func anInvitationAdmitsADeviceAndBothTakeEachOthersChanges() throws {
        let setup = try Setup()
        let laptop = try setup.store("laptop")
        let phone = try setup.store("phone")
        _ = try setup.note(laptop, "from the laptop")
        _ = try setup.note(phone, "from the phone")
        try SyncRosters.admit(phone, by: laptop, folder: setup.folder)
        _ = try laptop.sync(folder: setup.folder)
        #expect(try laptop.annotations().count == 2 && phone.annotations().count == 2)
        let roster = try #require(try laptop.roster())
        #expect(roster.activeDevices == [laptop.deviceID, phone.deviceID].sorted())
        #expect(try phone.roster()?.activeDevices == roster.activeDevices)
        #expect(roster.members[phone.deviceID]?.keys.fingerprint == (try phone.deviceKeys().fingerprint))
        #expect(try laptop.verify().isHealthy && phone.verify().isHealthy)
        // Every file each writes is signed: its manifest and its roster file name the signature last.
        for store in [laptop, phone] {
            let manifest = try String(contentsOfFile: "\(setup.folder)/devices/\(store.deviceID)/device.json",
                                      encoding: .utf8)
            #expect(manifest.contains("\"sig\":{\"by\":\"\(store.deviceID)\""))
        }
    }

    @Test func anInvitationIsRefusedWhenExpiredAlteredOrJoinedUnderANameNoDeviceCouldHave() throws {
        let setup = try Setup()
        let laptop = try setup.store("laptop")
        let phone = try setup.store("phone")
        let invitation = try laptop.invite()
        #expect {
            try phone.join(invitation, name: "phone\u{07}")
        } throws: { ($0 as? MarginaliaError)?.category == .invalidArgument }
        var altered = invitation.entries
        altered[0].name = "someone else"
        let forged = DeviceInvitation(roster: invitation.roster, from: invitation.from,
                                      fingerprint: invitation.fingerprint, expires: invitation.expires,
                                      token: invitation.token, entries: altered)
        #expect {
            try phone.join(forged)
        } throws: { ($0 as? MarginaliaError)?.category == .invalidData }
        let expired = DeviceInvitation(roster: invitation.roster, from: invitation.from,
                                       fingerprint: invitation.fingerprint, expires: "2000-01-01T00:00:00.000Z",
                                       token: invitation.token, entries: invitation.entries)
        #expect {
            try phone.join(expired)
        } throws: { "\($0)".contains("expired") }
        #expect(try phone.roster() == nil)
    }

    @Test func aForgerWithADirectoryOfItsOwnIsReportedAndNothingOfItIsTaken() throws {
        let setup = try Setup()
        let (laptop, phone) = try Self.pair(setup)
        let mine = try setup.note(laptop, "mine")
        _ = try laptop.sync(folder: setup.folder)
        _ = try phone.sync(folder: setup.folder)
        // A store outside the roster takes the laptop's changes from an old copy and edits them under its own id,
        // and claims the laptop's id as a former id of its own (the manifest's formerDevices).
        let forger = try setup.store("forger")
        try forger.foundRoster()
        try forger.merge(try laptop.changes(after: nil))
        try forger.editAnnotation(id: mine.id, note: "forged")
        _ = try forger.sync(folder: setup.folder)
        let manifest = "\(setup.folder)/devices/\(forger.deviceID)/device.json"
        try Data(String(contentsOfFile: manifest, encoding: .utf8).replacingOccurrences(
            of: "\"formerDevices\":[]", with: "\"formerDevices\":[\"\(laptop.deviceID)\"]").utf8)
            .write(to: URL(fileURLWithPath: manifest))
        for store in [laptop, phone] {
            let report = try store.sync(folder: setup.folder)
            #expect(report.changesApplied == 0)
            #expect(report.refused.contains { $0.path == "devices/\(forger.deviceID)" })
            #expect(report.renewedFromDeviceID == nil)
            #expect(try store.annotation(id: mine.id).note == "mine")
            #expect(try store.verify().isHealthy)
        }
    }

    @Test func anEmptyDirectoryMadeByAnyoneCensorsNoDevicesChanges() throws {
        let setup = try Setup()
        let (laptop, phone) = try Self.pair(setup)
        // The laptop brings in, by archive, the changes of a device that never synced: it carries them in its own
        // directory. Anyone then makes an empty directory named after that device.
        let kindle = try setup.store("kindle")
        _ = try setup.note(kindle, "from elsewhere")
        let archive = setup.directory.path("kindle.jsonl.gz")
        try kindle.exportArchive(toFile: archive)
        try laptop.importArchive(path: archive)
        try FileManager.default.createDirectory(atPath: "\(setup.folder)/devices/\(kindle.deviceID)",
                                                withIntermediateDirectories: true)
        _ = try laptop.sync(folder: setup.folder)
        let report = try phone.sync(folder: setup.folder)
        #expect(report.changesApplied == 1)
        #expect(try phone.annotations().map(\.note) == ["from elsewhere"])
        #expect(report.refused.contains { $0.path == "devices/\(kindle.deviceID)" })
    }

    @Test func aCopiedStoreTakesANewIDAdmittedByTheKeyOfTheOneItWas() throws {
        let setup = try Setup()
        var laptop: AnnotationStore? = try setup.store("laptop")
        let phone = try setup.store("phone")
        try Self.admit(phone, by: laptop!, folder: setup.folder)
        let shared = laptop!.deviceID
        try laptop!.close()
        laptop = nil
        try FileManager.default.copyItem(atPath: setup.directory.path("laptop.db"),
                                         toPath: setup.directory.path("copy.db"))
        let copy = try setup.store("copy")
        let written = try setup.note(copy, "de pe copie")
        let round = try copy.sync(folder: setup.folder)
        #expect(round.renewedFromDeviceID == shared && round.deviceID != shared)
        let roster = try #require(try copy.roster())
        #expect(roster.activeKeys(of: copy.deviceID) != nil && roster.formerIDs[copy.deviceID] == [shared])
        // The phone learns the admission from the copy's roster file and takes its changes.
        let read = try phone.sync(folder: setup.folder)
        #expect(read.changesApplied == 1 && read.refused.isEmpty)
        #expect(try phone.annotation(id: written.id).note == "de pe copie")
        #expect(try phone.roster()?.activeDevices.contains(copy.deviceID) == true)
    }

    @Test func aSegmentPlantedInAStoresOwnDirectoryIsReportedNotTakenAsACopy() throws {
        let setup = try Setup()
        let (laptop, _) = try Self.pair(setup)
        let forger = try setup.store("forger")
        try forger.foundRoster()
        _ = try setup.note(forger, "planted")
        let written = try #require(try forger.sync(folder: setup.folder).written)
        let planted = "\(setup.folder)/devices/\(laptop.deviceID)/"
            + (written.path as NSString).lastPathComponent
        try FileManager.default.copyItem(atPath: "\(setup.folder)/\(written.path)", toPath: planted)
        for _ in 0..<3 {
            let report = try laptop.sync(folder: setup.folder)
            #expect(report.renewedFromDeviceID == nil && report.changesApplied == 0)
            #expect(report.refused.contains { $0.path.hasSuffix((written.path as NSString).lastPathComponent) })
            #expect(report.written == nil)
        }
        #expect(try laptop.annotations().isEmpty)
    }

    @Test func aForgedStatusFileMakesNoWriterRewriteOrDelete() throws {
        let setup = try Setup()
        let (laptop, phone) = try Self.pair(setup)
        _ = try setup.note(laptop, "one")
        let written = try #require(try laptop.sync(folder: setup.folder).written)
        // An unsigned status file in the phone's own directory, and one in a stranger's, both calling the laptop's
        // segment damaged.
        let size = try FileManager.default.attributesOfItem(atPath: "\(setup.folder)/\(written.path)")[.size] as! Int
        let status = SyncStatusFile(device: phone.deviceID, files: [
            SyncStatusFile.Entry(path: written.path, size: Int64(size), reason: "forged")])
        try Data(try status.encoded()).write(to: URL(
            fileURLWithPath: "\(setup.folder)/devices/\(phone.deviceID)/unreadable.json"))
        let stranger = "\(setup.folder)/devices/stranger"
        try FileManager.default.createDirectory(atPath: stranger, withIntermediateDirectories: true)
        let strangers = SyncStatusFile(device: "stranger", files: status.files)
        try Data(try strangers.encoded()).write(to: URL(fileURLWithPath: "\(stranger)/unreadable.json"))
        for _ in 0..<3 {
            let report = try laptop.sync(folder: setup.folder)
            #expect(report.republished.isEmpty && report.removed.isEmpty && report.written == nil)
        }
        #expect(FileManager.default.fileExists(atPath: "\(setup.folder)/\(written.path)"))
    }

    @Test func aSegmentAnAdmittedDeviceCallsDamagedIsCheckedByItsWriterAndKeptWhenWhole() throws {
        let setup = try Setup()
        let (laptop, phone) = try Self.pair(setup)
        _ = try setup.note(laptop, "one")
        let written = try #require(try laptop.sync(folder: setup.folder).written)
        let path = "\(setup.folder)/\(written.path)"
        // The phone's own, signed status file says the laptop's segment is damaged (its copy, say, is): the laptop
        // finds its copy as written, writes the changes again once, and keeps it.
        let keys = try #require(try RosterLedger(db: try phone.db).keys(of: phone.deviceID))
        let status = SyncStatusFile(device: phone.deviceID, files: [
            SyncStatusFile.Entry(path: written.path, size: Int64(written.bytes), reason: "says the phone")])
        try Data(try status.encoded(signedWith: keys)).write(to: URL(
            fileURLWithPath: "\(setup.folder)/devices/\(phone.deviceID)/unreadable.json"))
        let first = try laptop.sync(folder: setup.folder)
        #expect(first.republished == [written.path] && first.removed.isEmpty)
        #expect(FileManager.default.fileExists(atPath: path))
        for _ in 0..<2 {
            let again = try laptop.sync(folder: setup.folder)
            #expect(again.republished.isEmpty && again.removed.isEmpty && again.written == nil)
        }
        // Damaged here too (a flipped byte): written again and removed.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: path))
        let healed = try laptop.sync(folder: setup.folder)
        #expect(healed.republished == [written.path] && healed.removed == [written.path])
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aManifestAskingForANewerReaderStopsOnlyItsOwnDirectory() throws {
        let setup = try Setup()
        let (laptop, phone) = try Self.pair(setup)
        _ = try setup.note(phone, "still read")
        _ = try phone.sync(folder: setup.folder)
        let stranger = "\(setup.folder)/devices/future"
        try FileManager.default.createDirectory(atPath: stranger, withIntermediateDirectories: true)
        try Data(#"{"format":"marginalia-sync","formatVersion":99,"minReaderVersion":99,"device":"future"}"#.utf8
            + [0x0A]).write(to: URL(fileURLWithPath: "\(stranger)/device.json"))
        let report = try laptop.sync(folder: setup.folder)
        #expect(report.changesApplied == 1)
        #expect(report.refused.contains { $0.path == "devices/future" })
    }

    @Test func aRevokedDeviceSpeaksNoMoreAndWritesNothing() throws {
        let setup = try Setup()
        let (laptop, phone) = try Self.pair(setup)
        let tablet = try setup.store("tablet")
        try Self.admit(tablet, by: laptop, folder: setup.folder)
        let roster = try laptop.revokeDevice(phone.deviceID)
        #expect(roster.activeDevices == [laptop.deviceID, tablet.deviceID].sorted() && roster.epoch == 1)
        _ = try laptop.sync(folder: setup.folder)
        _ = try tablet.sync(folder: setup.folder)
        _ = try setup.note(phone, "after the revocation")
        let phoneRound = try phone.sync(folder: setup.folder)
        #expect(phoneRound.notSpeaking?.contains("revoked") == true && phoneRound.written == nil)
        // 50 segments forged under the phone's id and signed with its key, as a thief holding the phone would.
        let keys = try #require(try RosterLedger(db: try phone.db).keys(of: phone.deviceID))
        let rosterID = try #require(try phone.roster()?.id)
        let forged = try phone.changes(after: nil)
        for index in 1...50 {
            let header = SegmentHeader(device: phone.deviceID, log: "stolen", firstSequence: Int64(100 + index),
                                       lastSequence: Int64(100 + index), createdAt: "2030-01-01T00:00:00.000Z")
            let bytes = try SegmentFile.encode(header: header, changes: forged, signer: SegmentSigner(
                roster: rosterID, keys: keys))
            try Data(bytes).write(to: URL(fileURLWithPath: "\(setup.folder)/devices/\(phone.deviceID)/"
                + SyncFormat.segmentName(first: Int64(100 + index), last: Int64(100 + index), nonce: "0000abcd")))
        }
        // Refused on every device that remains.
        for store in [laptop, tablet] {
            let report = try store.sync(folder: setup.folder)
            #expect(report.changesApplied == 0)
            #expect(report.refused.contains {
                $0.path == "devices/\(phone.deviceID)" && $0.reason.contains("revoked")
            })
            #expect(try store.annotations().isEmpty)
        }
    }

    @Test func twoRevocationsMadeAtOnceOnTwoDevicesEndInOneEpoch() throws {
        let setup = try Setup()
        let (laptop, phone) = try Self.pair(setup)
        let tablet = try setup.store("tablet")
        try SyncRosters.admit(tablet, by: laptop, folder: setup.folder)
        let old = try setup.store("old")
        try SyncRosters.admit(old, by: phone, folder: setup.folder)
        let lost = try setup.store("lost")
        try SyncRosters.admit(lost, by: laptop, folder: setup.folder)
        for store in [laptop, phone, tablet] { _ = try store.sync(folder: setup.folder) }
        try laptop.revokeDevice(lost.deviceID)
        try tablet.revokeDevice(old.deviceID)
        for _ in 0..<2 { for store in [laptop, phone, tablet] { _ = try store.sync(folder: setup.folder) } }
        let rosters = try [laptop, phone, tablet].map { try #require(try $0.roster()) }
        #expect(rosters.allSatisfy { $0.epoch == 2 })
        #expect(Set(rosters.map(\.activeDevices)).count == 1)
        #expect(rosters[0].activeDevices == [laptop.deviceID, phone.deviceID, tablet.deviceID].sorted())
    }
}
