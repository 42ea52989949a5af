import Foundation
import Testing
@testable import Marginalia

/// Every folder has a roster: the first store to sync through it founds one, a store in no roster reads and writes
/// nothing in a folder of another until it joins, and a folder written before rosters is taken over by its first
/// upgraded store, each of the others joining in turn.
@Suite struct RosterDefaultTests {
    typealias Setup = SyncTests.Setup

    static let notSigned = "not signed: no device of this folder's roster wrote it"
    static let notAdmitted = "not admitted to this folder's roster: its files are left unread"

    /// A round as versions before rosters ran it, for what it writes: this store's manifest (unsigned, naming no
    /// roster) and one unsigned segment of its log since its last, through the publishing step with no roster, which
    /// records what it published under the store's log alone.
    static func roundBeforeRosters(_ store: AnnotationStore, folder path: String) throws -> SyncReport {
        try store.engine.writing { connection in
            let folder = try SyncFolder(path: path)
            let device = connection.deviceID
            var round = SyncRound(folder: folder, report: SyncReport(folder: folder.root, deviceID: device),
                                  log: try connection.createdAt())
            _ = try folder.prepareDirectory(of: device) { DeviceManifest(device: device) }
            round.lock = try folder.lock(directoryOf: device)
            round.lockedDevice = device
            round.participants = [device]
            return try SyncReplica(store: connection).publish(&round, compact: false)
        }
    }

    /// The lines of a segment in the folder, decompressed.
    static func lines(of segment: SyncSegment, in folder: String) throws -> [String] {
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(segment.path)")))
        return String(decoding: try GzipReader(source: ByteArraySource(bytes)).readAll(), as: UTF8.self)
            .split(separator: "\n").map(String.init)
    }

    @Test func theFirstRoundFoundsTheRosterAndAStoreInNoneReadsAndWritesNothingUntilItJoins() throws {
        let setup = try Setup()
        let laptop = try setup.store("laptop")
        let phone = try setup.store("phone")
        let mine = try setup.note(laptop, "from the laptop")
        let theirs = try setup.note(phone, "from the phone")
        #expect(try laptop.roster() == nil)
        let founding = try laptop.sync(folder: setup.folder)
        let roster = try #require(try laptop.roster())
        #expect(founding.roster == roster.id && founding.joinNeeded == nil && founding.written?.changes == 1)
        #expect(roster.founder == laptop.deviceID && roster.activeDevices == [laptop.deviceID])

        // The phone belongs to no roster and finds the laptop's in the folder: it writes nothing there (not even
        // its directory), reads nothing, and says which roster to join, by its founder's fingerprint.
        let before = try SimulatedSyncTool.files(in: setup.folder)
        let outside = try phone.sync(folder: setup.folder)
        #expect(outside.joinNeeded == SyncJoinNeeded(roster: roster.id, founder: laptop.deviceID,
                                                     founderFingerprint: try laptop.deviceKeys().fingerprint))
        #expect(outside.roster == nil && outside.devices.isEmpty && outside.written == nil && !outside.createdManifest)
        #expect(try SimulatedSyncTool.files(in: setup.folder) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(setup.folder)/devices") == [laptop.deviceID])
        #expect(try phone.roster() == nil)
        #expect(try phone.annotations().map(\.id) == [theirs.id])

        // Invited, joined and admitted, the two meet.
        try SyncRosters.admit(phone, by: laptop, folder: setup.folder)
        _ = try laptop.sync(folder: setup.folder)
        for store in [laptop, phone] {
            #expect(Set(try store.annotations().map(\.id)) == [mine.id, theirs.id])
            #expect(try store.roster()?.activeDevices == [laptop.deviceID, phone.deviceID].sorted())
        }
        #expect(try ArchiveFixtures.state(of: laptop) == ArchiveFixtures.state(of: phone))
    }

    /// A store file copied to a new machine (by hand, by a backup tool) joins under a new device id, as its first
    /// round would take: its request to be admitted then lies in the directory of the device it names.
    @Test func aCopyOfAStoreJoinsUnderANewDeviceIDAndIsAdmitted() throws {
        let setup = try Setup()
        let laptop = try setup.store("laptop")
        _ = try laptop.sync(folder: setup.folder)
        var original: AnnotationStore? = try setup.store("original")
        let note = try setup.note(original!, "made before the copy")
        let originalID = original!.deviceID
        try original!.close()
        original = nil
        try FileManager.default.copyItem(atPath: setup.directory.path("original.db"),
                                         toPath: setup.directory.path("copy.db"))
        let copy = try setup.store("copy")
        #expect(copy.deviceID == originalID)
        try SyncRosters.join(copy, invitedBy: laptop)
        #expect(copy.deviceID != originalID)
        let waiting = try copy.sync(folder: setup.folder)
        #expect(waiting.renewedFromDeviceID == nil && waiting.written?.changes == 1)
        let admitting = try laptop.sync(folder: setup.folder)
        #expect(admitting.admitted.map(\.device) == [copy.deviceID] && admitting.changesApplied == 1)
        #expect(try laptop.annotation(id: note.id).note == "made before the copy")
    }

    @Test func aFolderWrittenBeforeRostersIsFoundedByTheFirstUpgradedStoreAndAPeerThatJoinsPublishesItsLogAgain()
        throws
    {
        let setup = try Setup()
        let desk = try setup.store("desk")
        let phone = try setup.store("phone")
        let deskNotes = try (0..<2).map { try setup.note(desk, "desk \($0)") }
        let phoneNotes = try (0..<3).map { try setup.note(phone, "phone \($0)") }
        let deskOld = try #require(try Self.roundBeforeRosters(desk, folder: setup.folder).written)
        let phoneOld = try #require(try Self.roundBeforeRosters(phone, folder: setup.folder).written)
        // The folder as those versions left it: segments that end with their trailer, unsigned.
        for old in [deskOld, phoneOld] {
            #expect(try Self.lines(of: old, in: setup.folder).last?.hasPrefix("{\"type\":\"trailer\"") == true)
        }

        // Upgraded, the desk finds no roster in the folder and founds one. It takes nothing of the phone's directory,
        // which no device of its roster signed, and publishes its whole log again, signed.
        let upgraded = try desk.sync(folder: setup.folder)
        let roster = try #require(try desk.roster())
        #expect(upgraded.roster == roster.id && roster.founder == desk.deviceID)
        #expect(upgraded.refused == [SyncFileIssue(path: "devices/\(phone.deviceID)", reason: Self.notAdmitted)])
        #expect(upgraded.changesApplied == 0 && upgraded.damaged.isEmpty)
        #expect(Set(try desk.annotations().map(\.id)) == Set(deskNotes.map(\.id)))
        let deskSigned = try #require(upgraded.written)
        #expect(deskSigned.firstSequence == 1 && deskSigned.lastSequence == deskOld.lastSequence)
        #expect(deskSigned.changes == 2 && deskSigned.path != deskOld.path)
        #expect(try Self.lines(of: deskSigned, in: setup.folder).last?.hasPrefix(
            "{\"type\":\"signature\",\"roster\":\"\(roster.id)\",\"by\":\"\(desk.deviceID)\"") == true)
        let manifestPath = "\(setup.folder)/devices/\(desk.deviceID)/device.json"
        let manifest = try Array(Data(contentsOf: URL(fileURLWithPath: manifestPath)))
        #expect(try SignedFile.decode(manifest, kind: SyncFormat.name) { roster.activeKeys(of: $0) }.signer
            == desk.deviceID)
        #expect(try DeviceManifest(bytes: manifest, file: manifestPath).roster == roster.id)

        // The phone, upgraded too, finds the desk's roster: it reads and writes nothing until it joins.
        let before = try SimulatedSyncTool.files(in: setup.folder)
        let outside = try phone.sync(folder: setup.folder)
        #expect(outside.joinNeeded?.roster == roster.id && outside.joinNeeded?.founder == desk.deviceID)
        #expect(try SimulatedSyncTool.files(in: setup.folder) == before)

        // Joined, it reads the desk's signed segment (not the unsigned one) while it waits to be admitted, and
        // publishes its log again from the start, signed: what it published before is recorded under its log
        // alone, what it publishes for the roster under the log and the roster. Its own changes only.
        let log = try phone.createdAt()
        #expect(try SyncLedger(db: phone.db).published(device: phone.deviceID, log: log) == phoneOld.lastSequence)
        try SyncRosters.join(phone, invitedBy: desk)
        let waiting = try phone.sync(folder: setup.folder)
        #expect(waiting.notSpeaking == SyncRosters.waiting)
        #expect(waiting.changesApplied == 2)
        #expect(waiting.refused == [SyncFileIssue(path: deskOld.path, reason: Self.notSigned)])
        let phoneSigned = try #require(waiting.written)
        #expect(phoneSigned.firstSequence == 1 && phoneSigned.lastSequence == phoneOld.lastSequence + 2)
        #expect(phoneSigned.changes == 3)
        #expect(try SyncLedger(db: phone.db).published(device: phone.deviceID, log: "\(log)@\(roster.id)")
            == phoneSigned.lastSequence)

        // The desk admits it and takes its signed segment at once, refusing the unsigned one beside it.
        let admitting = try desk.sync(folder: setup.folder)
        #expect(admitting.admitted.map(\.device) == [phone.deviceID])
        #expect(admitting.changesApplied == 3)
        #expect(admitting.refused == [SyncFileIssue(path: phoneOld.path, reason: Self.notSigned)])
        let admitted = try phone.sync(folder: setup.folder)
        #expect(admitted.notSpeaking == nil && admitted.written == nil && admitted.changesApplied == 0)
        // From then on the unsigned segment is covered by the signed one applied: recorded without being read, and
        // no longer reported. A compaction of the phone's folds both into one signed segment, recorded so too.
        let quiet = try desk.sync(folder: setup.folder)
        #expect(quiet.changesApplied == 0 && quiet.written == nil && quiet.refused.isEmpty)
        setup.clock.advance(SyncFormat.compactionGrace + 1)
        let compacted = try phone.sync(folder: setup.folder, compact: true)
        #expect(Set(compacted.removed) == [phoneOld.path, phoneSigned.path] && compacted.compactedInto != nil)
        let folded = try desk.sync(folder: setup.folder)
        #expect(folded.refused.isEmpty && folded.changesApplied == 0)
        let all = Set((deskNotes + phoneNotes).map(\.id))
        for store in [desk, phone] { #expect(Set(try store.annotations().map(\.id)) == all) }
        #expect(try ArchiveFixtures.state(of: desk) == ArchiveFixtures.state(of: phone))
        #expect(try desk.verify().isHealthy && phone.verify().isHealthy)
    }
}
