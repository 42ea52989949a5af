import Foundation
import Testing
@testable import Marginalia

/// The sync folder's second edition: each change stored once, compactions others follow without reading,
/// leftovers named once, damage named and repaired, symbolic links and borrowed device ids refused, one round at
/// a time per store.
@Suite struct SyncFolderRulesTests {
    typealias Setup = SyncTests.Setup

    /// Every change record in the folder's segments, by change id (a change stored twice counts twice).
    static func storedChanges(in folder: String) throws -> [String] {
        var ids: [String] = []
        for (path, _) in try SimulatedSyncTool.files(in: folder) where path.hasSuffix(".jsonl.gz") {
            guard let file = try SegmentFile(path: "\(folder)/\(path)") else { continue }
            guard case .whole(let summary) = try file.check(collectingIDs: true) else { continue }
            ids += summary.changeIDs ?? []
        }
        return ids
    }

    @Test func eachChangeIsStoredOnceWhateverTheNumberOfDevices() throws {
        let setup = try Setup()
        let stores = try ["laptop", "phone", "tablet", "desktop"].map { try setup.store($0) }
        try SyncRosters.oneRoster(stores, folder: setup.folder)
        // A store that never syncs; its note reaches the folder through the laptop, which imports its backup.
        let outside = try setup.store("outside")
        _ = try setup.note(outside, "din arhivă")
        let archive = setup.directory.path("outside.jsonl.gz")
        _ = try outside.exportArchive(toFile: archive)
        _ = try stores[0].importArchive(path: archive)
        for round in 0..<3 {
            for (index, store) in stores.enumerated() {
                _ = try setup.note(store, "nota \(round) de pe \(index)")
                _ = try SyncChecks.round(store, folder: setup.folder)
            }
        }
        for store in stores { _ = try SyncChecks.round(store, folder: setup.folder) }
        let stored = try Self.storedChanges(in: setup.folder)
        #expect(stored.count == Set(stored).count, "a change is stored more than once")
        #expect(Set(stored).count == 4 * 3 + 1)
        let state = try ArchiveFixtures.state(of: stores[0])
        for store in stores { #expect(try ArchiveFixtures.state(of: store) == state) }
        // The store's first round named no former device; the importer's manifest names none either: the
        // outside store's change was made under a device with no directory of its own.
        let manifest = try #require(try SyncFolder(path: setup.folder).manifest(of: stores[0].deviceID))
        #expect(manifest.formerDevices.isEmpty)
    }

    @Test func aReaderThatAppliedEverySegmentRecordsACompactionWithoutReadingIt() throws {
        let setup = try Setup()
        let laptop = try setup.store("laptop")
        let phone = try setup.store("phone")
        let behind = try setup.store("behind")
        try SyncRosters.oneRoster([laptop, phone, behind], folder: setup.folder)
        for index in 0..<3 {
            _ = try setup.note(laptop, "notă \(index)")
            _ = try SyncChecks.round(laptop, folder: setup.folder)
            _ = try SyncChecks.round(phone, folder: setup.folder)
            if index == 0 { _ = try SyncChecks.round(behind, folder: setup.folder) }
        }
        setup.clock.advance(SyncFormat.compactionGrace + 1)
        let compacted = try #require(try SyncChecks.round(laptop, folder: setup.folder, compact: true).compactedInto)
        let name = (compacted.path as NSString).lastPathComponent
        let quiet = try SyncChecks.round(phone, folder: setup.folder)
        let fromLaptop = try #require(quiet.devices.first { $0.device == laptop.deviceID })
        #expect(fromLaptop.segmentsApplied == 0 && fromLaptop.duplicates == 0, "the compacted file was read")
        #expect(try phone.db.int(sql: "SELECT count(*) FROM sync_files WHERE name = ?", arguments: [name]) == 1)
        // A reader that had applied only the first segment reads it, and takes only what it lacks.
        let caughtUp = try SyncChecks.round(behind, folder: setup.folder)
        let read = try #require(caughtUp.devices.first { $0.device == laptop.deviceID })
        #expect(read.segmentsApplied == 1 && read.changesApplied == 2 && read.duplicates == 1)
    }

    /// A segment written while the clock was ahead is young to a later compaction: the combined file covers only the
    /// run of old segments before it, so no change is stored twice.
    @Test func aCompactionNeverFoldsPastAYoungSegment() throws {
        let setup = try Setup()
        let laptop = try setup.store("laptop")
        let start = ArchiveFixtures.epoch + 10_000_000
        for (index, time) in [start, start + 3 * 3_600_000, start + 1_000, start + 2_000].enumerated() {
            setup.clock.set(time)
            _ = try setup.note(laptop, "n\(index)")
            _ = try SyncChecks.round(laptop, folder: setup.folder)
        }
        setup.clock.set(start + 2 * 3_600_000)
        let report = try SyncChecks.round(laptop, folder: setup.folder, compact: true)
        #expect(report.compactedInto == nil, "only one old segment comes before the young one")
        var stored = try Self.storedChanges(in: setup.folder)
        #expect(stored.count == 4 && Set(stored).count == 4)
        setup.clock.set(start + 5 * 3_600_000)
        let later = try SyncChecks.round(laptop, folder: setup.folder, compact: true)
        #expect(later.compactedInto != nil && later.removed.count == 4)
        stored = try Self.storedChanges(in: setup.folder)
        #expect(stored.count == 4 && Set(stored).count == 4)
    }

    @Test func aFileLeftForLongIsNamedOnceAndAConflictCopyIsRead() throws {
        let setup = try Setup()
        let laptop = try setup.store("laptop")
        let phone = try setup.store("phone")
        try SyncRosters.oneRoster([laptop, phone], folder: setup.folder)
        let note = try setup.note(laptop, "din copie")
        let segment = try #require(try SyncChecks.round(laptop, folder: setup.folder).written)
        let directory = "\(setup.folder)/devices/\(laptop.deviceID)"
        let name = (segment.path as NSString).lastPathComponent
        // The segment arrived only as Syncthing's conflict copy; a sync tool's temporary file was left long ago;
        // another is still being written.
        let copy = name.replacingOccurrences(of: ".jsonl.gz", with: ".jsonl.sync-conflict-20261201-120000-ABC.gz")
        try FileManager.default.moveItem(atPath: "\(directory)/\(name)", toPath: "\(directory)/\(copy)")
        let stale = "\(directory)/.syncthing.\(name).tmp"
        try Data("half".utf8).write(to: URL(fileURLWithPath: stale))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3_600)],
                                              ofItemAtPath: stale)
        let fresh = "\(directory)/.syncthing.other.tmp"
        try Data("half".utf8).write(to: URL(fileURLWithPath: fresh))
        let first = try SyncChecks.round(phone, folder: setup.folder)
        #expect(try phone.annotation(id: note.id).note == "din copie")
        #expect(first.leftovers.map(\.path) == ["devices/\(laptop.deviceID)/.syncthing.\(name).tmp"])
        #expect(first.leftovers.first?.reason.contains("safe to delete") == true)
        #expect(first.pending.map(\.path) == ["devices/\(laptop.deviceID)/.syncthing.other.tmp"])
        let second = try SyncChecks.round(phone, folder: setup.folder)
        #expect(second.leftovers.isEmpty && second.pending.count == 1 && second.damaged.isEmpty)
        // Changed, it is looked at afresh.
        try Data("more".utf8).write(to: URL(fileURLWithPath: stale))
        #expect(try SyncChecks.round(phone, folder: setup.folder).pending.count == 2)
    }

    @Test func aFlippedBitIsDamagedOnEveryRoundAndItsChangesStillArrive() throws {
        let setup = try Setup()
        let laptop = try setup.store("laptop")
        let phone = try setup.store("phone")
        try SyncRosters.oneRoster([laptop, phone], folder: setup.folder)
        let notes = try (0..<5).map { try setup.note(laptop, "notă \($0) cu destul text ca să fie comprimat") }
        let segment = try #require(try SyncChecks.round(laptop, folder: setup.folder).written)
        let path = "\(setup.folder)/\(segment.path)"
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count / 2] ^= 0x10
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let first = try SyncChecks.round(phone, folder: setup.folder)
        #expect(first.damaged.map(\.path) == [segment.path] && first.pending.isEmpty)
        #expect(try phone.annotations().isEmpty)
        // Named again, from what the store remembers of it (not read again), and in its status file.
        let second = try SyncChecks.round(phone, folder: setup.folder)
        #expect(second.damaged == first.damaged)
        let statusPath = "\(setup.folder)/devices/\(phone.deviceID)/unreadable.json"
        let status = try #require(SyncStatusFile(bytes: Array(Data(contentsOf: URL(fileURLWithPath: statusPath)))))
        #expect(status.files.map(\.path) == [segment.path] && status.files[0].size == Int64(bytes.count))
        // The writer reads the status, writes the changes again and removes the damaged file.
        let repaired = try SyncChecks.round(laptop, folder: setup.folder)
        #expect(repaired.republished == [segment.path])
        #expect(!FileManager.default.fileExists(atPath: path))
        let healed = try SyncChecks.round(phone, folder: setup.folder)
        #expect(healed.damaged.isEmpty && healed.changesApplied == 5)
        for note in notes { #expect(try phone.annotation(id: note.id).note == note.note) }
        let cleared = try #require(SyncStatusFile(bytes: Array(Data(contentsOf: URL(fileURLWithPath: statusPath)))))
        #expect(cleared.files.isEmpty)
    }

    @Test func aDeviceDirectoryThatIsASymbolicLinkIsNeverWrittenThroughNorFollowed() throws {
        let setup = try Setup()
        let laptop = try setup.store("laptop")
        _ = try setup.note(laptop, "x")
        let elsewhere = setup.directory.path("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(setup.folder)/devices", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: "\(setup.folder)/devices/\(laptop.deviceID)",
                                                   withDestinationPath: elsewhere)
        #expect {
            try laptop.sync(folder: setup.folder)
        } throws: { error in
            (error as? MarginaliaError)?.category == .invalidArgument && "\(error)".contains("symbolic link")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
        // Another store reads around it, and names it.
        let phone = try setup.store("phone")
        let report = try SyncChecks.round(phone, folder: setup.folder)
        #expect(report.damaged.map(\.path) == ["devices/\(laptop.deviceID)"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
    }

    @Test func changesUnderAnotherDevicesIDAreTakenOnlyFromItsOwnDirectory() throws {
        let setup = try Setup()
        let laptop = try setup.store("laptop")
        let phone = try setup.store("phone")
        let third = try setup.store("third")
        try SyncRosters.oneRoster([laptop, phone, third], folder: setup.folder)
        let shared = try setup.note(laptop, "a laptopului")
        _ = try SyncChecks.round(laptop, folder: setup.folder)
        _ = try SyncChecks.round(third, folder: setup.folder)
        // The third store publishes an edit in the laptop's name, from its own directory, signed as its own.
        let forged = Change(changeID: Identifiers.make(), hlc: HLC(milliseconds: ArchiveFixtures.epoch + 60_000,
                                                                     counter: 0),
                            device: laptop.deviceID, entityID: shared.id,
                            payload: .edit(note: .set("falsă"), color: nil, tags: [:]), wall: nil)
        let header = SegmentHeader(device: third.deviceID, log: try third.createdAt(), firstSequence: 1000,
                                   lastSequence: 1000, createdAt: "2026-12-01T00:00:00.000Z")
        let name = SyncFormat.segmentName(first: 1000, last: 1000, nonce: "0badc0de")
        let roster = try #require(try third.roster())
        let keys = try #require(try RosterLedger(db: third.db).keys(of: third.deviceID))
        try Data(try SegmentFile.encode(header: header, changes: [forged],
                                        signer: SegmentSigner(roster: roster.id, keys: keys)))
            .write(to: URL(fileURLWithPath: "\(setup.folder)/devices/\(third.deviceID)/\(name)"))
        let report = try SyncChecks.round(phone, folder: setup.folder)
        let refused = report.devices.flatMap(\.refused)
        #expect(refused.map(\.path) == ["devices/\(third.deviceID)/\(name)"])
        #expect(refused.first?.reason.contains(laptop.deviceID) == true)
        #expect(try phone.annotation(id: shared.id).note == "a laptopului")
        #expect(report.renewedFromDeviceID == nil)
        #expect(try laptop.sync(folder: setup.folder).renewedFromDeviceID == nil)
        #expect(try laptop.annotation(id: shared.id).note == "a laptopului")
    }

    @Test func twoRoundsOfOneStoreAtOnceWriteEachChangeOnce() throws {
        let setup = try Setup()
        let path = setup.directory.path("laptop.db")
        let laptop = try setup.store("laptop")
        for index in 0..<40 { _ = try setup.note(laptop, "n\(index)") }
        let again = try AnnotationStore.open(path: path, access: .readWrite)
        let failures = Failures()
        let folder = setup.folder
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            do {
                _ = try (index == 0 ? laptop : again).sync(folder: folder)
            } catch {
                failures.add(error)
            }
        }
        #expect(failures.errors.isEmpty, "\(failures.errors)")
        let stored = try Self.storedChanges(in: setup.folder)
        #expect(stored.count == 40 && Set(stored).count == 40)
    }

    @Test func aSegmentGoneBetweenListingAndReadingIsGoneNotPending() throws {
        let setup = try Setup()
        let folder = try SyncFolder(path: setup.folder)
        var round = SyncRound(folder: folder, report: SyncReport(folder: folder.root, deviceID: "me"), log: "")
        round.report.devices = [SyncDeviceReport(device: "other")]
        let segment = SyncRound.Segment(
            deviceIndex: 0, device: "other", name: "x", relative: "devices/other/x", path: setup.directory.path("x"),
            info: SyncFolder.FileInfo(kind: .regular, size: 10, modified: 0))
        #expect(try round.check(segment, now: 0) == nil)
        #expect(round.report.devices[0].gone == ["devices/other/x"] && round.report.pending.isEmpty)
    }
}

/// Errors met on several threads.
private final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var errors: [any Error] = []

    func add(_ error: any Error) {
        lock.withLock { errors.append(error) }
    }
}
