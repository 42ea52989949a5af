import Foundation
import Testing
@testable import Marginalia

/// One sync round's layout and refusals, late joiners, clones and compaction, on real folders.
@Suite struct SyncTests {
    typealias Fixtures = ArchiveFixtures

    /// A directory with a sync folder and stores beside it (never inside it).
    final class Setup {
        let directory: TemporaryDirectory
        let folder: String
        let clock = ManualClock(ArchiveFixtures.epoch)

        init() throws {
            directory = try TemporaryDirectory()
            folder = directory.path("Sync")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }

        func store(_ name: String) throws -> AnnotationStore {
            try ArchiveFixtures.store(directory, "\(name).db", clock: clock)
        }

        func note(_ store: AnnotationStore, _ text: String, passage: String = "luceafarul.1") throws -> Annotation {
            clock.advance(1_000)
            return try store.createAnnotation(.note, at: AnchorRequest(passage: passage), note: text)
        }

        func files(under relative: String) throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: "\(folder)/\(relative)").sorted()
        }
    }

    @Test func aRoundWritesTheManifestAndOneSegmentAndANoOpRoundWritesNothing() throws {
        let setup = try Setup()
        let laptop = try setup.store("laptop")
        _ = try setup.note(laptop, "prima")
        let first = try SyncChecks.round(laptop, folder: setup.folder)
        #expect(first.createdManifest)
        // The first round in an empty folder founds its roster, of this device alone.
        let roster = try #require(try laptop.roster())
        #expect(first.roster == roster.id && roster.founder == laptop.deviceID)
        #expect(roster.activeDevices == [laptop.deviceID])
        let written = try #require(first.written)
        #expect(written.changes == 1 && written.path.hasPrefix("devices/\(laptop.deviceID)/"))
        // The device's own manifest, signed, and its roster file, in its own directory; nothing at the top of the
        // folder but `devices/`.
        #expect(try setup.files(under: "devices/\(laptop.deviceID)")
            == [(written.path as NSString).lastPathComponent, "device.json", "roster.json"])
        let manifestPath = "\(setup.folder)/devices/\(laptop.deviceID)/device.json"
        let manifestBytes = try Array(Data(contentsOf: URL(fileURLWithPath: manifestPath)))
        let manifest = try DeviceManifest(bytes: manifestBytes, file: manifestPath)
        #expect(manifest == DeviceManifest(device: laptop.deviceID, roster: roster.id))
        #expect(try SignedFile.decode(manifestBytes, kind: SyncFormat.name) { roster.activeKeys(of: $0) }.signer
            == laptop.deviceID)
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.folder) == ["devices"])
        let before = try SimulatedSyncTool.files(in: setup.folder)
        let again = try SyncChecks.round(laptop, folder: setup.folder)
        #expect(again.written == nil && !again.createdManifest && again.changesApplied == 0)
        #expect(try SimulatedSyncTool.files(in: setup.folder) == before)
        // The segment is the archive's records: a header with the range, the change, a trailer; then the writer's
        // signature for its roster.
        let lines = String(decoding: try GzipReader(source: ByteArraySource(
            try #require(before[written.path]))).readAll(), as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[0].contains("\"format\":\"marginalia-sync-segment\"") && lines[0].contains("\"firstSeq\":1"))
        #expect(lines[1].hasPrefix("{\"type\":\"change\"") && lines[2].hasPrefix("{\"type\":\"trailer\""))
        #expect(lines[3].hasPrefix(
            "{\"type\":\"signature\",\"roster\":\"\(roster.id)\",\"by\":\"\(laptop.deviceID)\",\"ed25519\":\""))
        #expect(written.bytes < 8 * 1024)
    }

    /// The folder is read without the writer and each file merged in a transaction of its own: a write made
    /// between two files goes in at once, and the round goes on.
    @Test func aWriteMadeDuringARoundDoesNotWaitForTheWholeRound() throws {
        let setup = try Setup()
        let phone = try setup.store("phone")
        let names = ["laptop", "tablet", "desktop"]
        let others = try names.map { try setup.store($0) }
        try SyncRosters.oneRoster([phone] + others, folder: setup.folder)
        for (name, other) in zip(names, others) {
            _ = try setup.note(other, "din \(name)")
            _ = try SyncChecks.round(other, folder: setup.folder)
        }
        let written = WriteDuringWork()
        phone.progressHandler = written.handler(at: "applying sync files", done: 1) {
            try phone.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.1")).id
        }
        let report = try phone.sync(folder: setup.folder)
        written.settle()
        #expect(written.finishedInTime, "the write waited for the whole round")
        #expect(report.changesApplied == 3)
        // The segment the round wrote holds what was made on this device: the write made during the round (the
        // three changes merged are in their own devices' directories already).
        #expect(report.written?.changes == 1)
        #expect(try phone.annotations().count == 4)
    }

    @Test func twoStoresMeetAndReadOnlyWhatIsNew() throws {
        let setup = try Setup()
        let laptop = try setup.store("laptop")
        let phone = try setup.store("phone")
        try SyncRosters.oneRoster([laptop, phone], folder: setup.folder)
        let a = try setup.note(laptop, "din laptop")
        let b = try setup.note(phone, "din telefon")
        _ = try SyncChecks.round(laptop, folder: setup.folder)
        let phoneRound = try SyncChecks.round(phone, folder: setup.folder)
        #expect(phoneRound.changesApplied == 1)
        let fromLaptop = try #require(phoneRound.devices.first { $0.device == laptop.deviceID })
        #expect(fromLaptop.segmentsApplied == 1 && fromLaptop.changesApplied == 1)
        _ = try SyncChecks.round(laptop, folder: setup.folder)
        #expect(try laptop.annotation(id: b.id).note == "din telefon")
        #expect(try phone.annotation(id: a.id).note == "din laptop")
        // Applied files are recorded (device, name, size, SHA-256) and not read again.
        let recorded = try phone.db.fetchAll(sql: "SELECT device, name, size, sha256 FROM sync_files "
            + "WHERE origin = 'applied'") { row in
                (try row.string(0), try row.string(1), try row.int64(2), try row.string(3))
            }
        #expect(recorded.count == 1 && recorded[0].0 == laptop.deviceID && recorded[0].3.count == 64)
        let path = "\(setup.folder)/devices/\(recorded[0].0)/\(recorded[0].1)"
        #expect(try SHA256Digest.hex(of: Array(Data(contentsOf: URL(fileURLWithPath: path)))) == recorded[0].3)
        // The laptop's second round has nothing of its own to write: the phone's change stays in the phone's
        // directory alone.
        let forwarded = try SyncChecks.round(phone, folder: setup.folder)
        #expect(forwarded.changesApplied == 0 && forwarded.written == nil)
        let segments = try FileManager.default.subpathsOfDirectory(atPath: "\(setup.folder)/devices")
            .filter { $0.hasSuffix(".jsonl.gz") }
        #expect(segments.count == 2)
        let quiet = try SyncChecks.round(phone, folder: setup.folder)
        #expect(quiet.devices.allSatisfy { $0.segmentsApplied == 0 && $0.duplicates == 0 })
        #expect(try Fixtures.state(of: laptop) == Fixtures.state(of: phone))
    }

    @Test func aConflictIsReportedWithTheAnnotationAndTheValueThatLost() throws {
        let setup = try Setup()
        let laptop = try setup.store("laptop")
        let phone = try setup.store("phone")
        try SyncRosters.oneRoster([laptop, phone], folder: setup.folder)
        let shared = try setup.note(laptop, "la început")
        _ = try SyncChecks.round(laptop, folder: setup.folder)
        _ = try SyncChecks.round(phone, folder: setup.folder)
        setup.clock.advance(1_000)
        try laptop.editAnnotation(id: shared.id, note: "de pe laptop")
        setup.clock.advance(1_000)
        try phone.editAnnotation(id: shared.id, note: "de pe telefon")
        _ = try SyncChecks.round(laptop, folder: setup.folder)
        let round = try SyncChecks.round(phone, folder: setup.folder)
        let fromLaptop = try #require(round.devices.first { $0.device == laptop.deviceID })
        #expect(fromLaptop.conflictsResolved == 1)
        #expect(fromLaptop.conflicts.map(\.id) == [shared.id])
        #expect(fromLaptop.conflicts.first?.field == "note" && fromLaptop.conflicts.first?.lostValue == "de pe laptop")
        #expect(fromLaptop.conflicts.first?.keptValue == "de pe telefon")
        #expect(try phone.history(id: shared.id).contains { $0.fields.note == "de pe laptop" })
    }

    @Test func aFileThatDoesNotReadWholeIsPendingAndABadRecordIsReportedWithItsLine() throws {
        let setup = try Setup()
        let laptop = try setup.store("laptop")
        let phone = try setup.store("phone")
        try SyncRosters.oneRoster([laptop, phone], folder: setup.folder)
        _ = try setup.note(laptop, "unu")
        let segment = try #require(try SyncChecks.round(laptop, folder: setup.folder).written)
        let path = "\(setup.folder)/\(segment.path)"
        let whole = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        try Data(whole.prefix(whole.count / 2)).write(to: URL(fileURLWithPath: path))
        let directory = (path as NSString).deletingLastPathComponent
        for name in [".syncthing.x.tmp", "x.jsonl.gz.icloud", "a (conflicted copy).jsonl.gz"] {
            try Data(whole).write(to: URL(fileURLWithPath: "\(directory)/\(name)"))
        }
        let halfRound = try SyncChecks.round(phone, folder: setup.folder)
        #expect(halfRound.pending.count == 4 && halfRound.changesApplied == 0)
        #expect(halfRound.pending.contains { $0.path == segment.path && $0.reason.contains("copy in progress") })
        #expect(try phone.annotations().isEmpty)
        try Data(whole).write(to: URL(fileURLWithPath: path))
        #expect(try SyncChecks.round(phone, folder: setup.folder).changesApplied == 1)

        // A whole file with a bad line: damaged, named with its line, nothing of it merged.
        _ = try setup.note(laptop, "doi")
        _ = try setup.note(laptop, "trei")
        let next = try #require(try SyncChecks.round(laptop, folder: setup.folder).written)
        let nextPath = "\(setup.folder)/\(next.path)"
        var lines = String(decoding: try GzipReader(source: ByteArraySource(
            Array(Data(contentsOf: URL(fileURLWithPath: nextPath))))).readAll(), as: UTF8.self)
            .split(separator: "\n").map(String.init)
        lines[1] = lines[1].replacingOccurrences(of: "\"op\":\"create\"", with: "\"op\":\"explode\"")
        let sink = ByteArraySink()
        let gzip = try GzipWriter(sink: sink)
        try gzip.write(lines.joined(separator: "\n") + "\n")
        try gzip.finish()
        try Data(sink.bytes).write(to: URL(fileURLWithPath: nextPath))
        let bad = try SyncChecks.round(phone, folder: setup.folder)
        #expect(bad.damaged.count == 1 && bad.damaged[0].line == 2 && bad.damaged[0].path == next.path)
        #expect(bad.changesApplied == 0 && !bad.pending.contains { $0.path == next.path })
    }

    @Test func aLateJoinerCatchesUpFromTheFolderAloneAndDeletionsStayDeletions() throws {
        let setup = try Setup()
        let laptop = try setup.store("laptop")
        let phone = try setup.store("phone")
        try SyncRosters.oneRoster([laptop, phone], folder: setup.folder)
        let kept = try setup.note(laptop, "rămâne")
        let gone = try setup.note(laptop, "se șterge")
        _ = try SyncChecks.round(laptop, folder: setup.folder)
        _ = try SyncChecks.round(phone, folder: setup.folder)
        // The phone goes away; meanwhile the laptop deletes a note.
        setup.clock.advance(90 * 86_400_000)
        try laptop.deleteAnnotation(id: gone.id)
        _ = try setup.note(phone, "de pe drum")
        _ = try SyncChecks.round(laptop, folder: setup.folder)
        _ = try SyncChecks.round(phone, folder: setup.folder)
        #expect(try phone.annotation(id: gone.id).deleted)
        _ = try SyncChecks.round(laptop, folder: setup.folder)
        // A new machine, from the folder alone: with an invitation, before it is admitted (its round reads the
        // admitted devices' directories and writes no segment).
        let tablet = try setup.store("tablet")
        try SyncRosters.join(tablet, invitedBy: laptop)
        let joined = try SyncChecks.round(tablet, folder: setup.folder)
        #expect(joined.pending.isEmpty && joined.damaged.isEmpty && joined.refused.isEmpty)
        #expect(joined.notSpeaking == SyncRosters.waiting && joined.written == nil)
        #expect(try tablet.annotation(id: gone.id).deleted && !tablet.annotation(id: kept.id).deleted)
        #expect(try Fixtures.state(of: tablet) == Fixtures.state(of: laptop))
        #expect(try Fixtures.state(of: phone) == Fixtures.state(of: laptop))
        // An old segment seen again, in a directory of a device outside the roster, is not read: it resurrects
        // nothing.
        let oldSegment = try setup.files(under: "devices/\(laptop.deviceID)")[0]
        let stranger = "devices/\(Identifiers.make())"
        try FileManager.default.createDirectory(atPath: "\(setup.folder)/\(stranger)",
                                                withIntermediateDirectories: true)
        try Data(contentsOf: URL(fileURLWithPath: "\(setup.folder)/devices/\(laptop.deviceID)/\(oldSegment)"))
            .write(to: URL(fileURLWithPath: "\(setup.folder)/\(stranger)/\(oldSegment)"))
        let again = try SyncChecks.round(tablet, folder: setup.folder)
        #expect(again.refused == [SyncFileIssue(
            path: stranger, reason: "not admitted to this folder's roster: its files are left unread")])
        #expect(try tablet.annotation(id: gone.id).deleted)
    }

    @Test func aClonedStoreTakesANewDeviceIDBeforeWritingAndBothMeet() throws {
        let setup = try Setup()
        var original: AnnotationStore? = try setup.store("original")
        _ = try setup.note(original!, "înainte de copiere")
        _ = try SyncChecks.round(original!, folder: setup.folder)
        try original!.close()
        original = nil
        try FileManager.default.copyItem(atPath: setup.directory.path("original.db"),
                                         toPath: setup.directory.path("clone.db"))
        let first = try setup.store("original")
        let clone = try setup.store("clone")
        let sharedID = first.deviceID
        #expect(clone.deviceID == sharedID)
        let fromOriginal = try setup.note(first, "de pe original")
        let fromClone = try setup.note(clone, "de pe copie")
        let originalWrote = try #require(try SyncChecks.round(first, folder: setup.folder).written)
        let cloneRound = try SyncChecks.round(clone, folder: setup.folder)
        #expect(cloneRound.renewedFromDeviceID == sharedID && cloneRound.deviceID != sharedID)
        #expect(cloneRound.renewalReason?.isEmpty == false)
        let cloneWrote = try #require(cloneRound.written)
        #expect(cloneWrote.path.hasPrefix("devices/\(clone.deviceID)/"))
        let shared = try setup.files(under: "devices/\(sharedID)").filter { $0.hasSuffix(".jsonl.gz") }
        #expect(shared.count == 2 && shared.contains((originalWrote.path as NSString).lastPathComponent))
        _ = try SyncChecks.round(first, folder: setup.folder)
        _ = try SyncChecks.round(clone, folder: setup.folder)
        #expect(try first.annotation(id: fromClone.id).note == "de pe copie")
        #expect(try clone.annotation(id: fromOriginal.id).note == "de pe original")
        #expect(try Fixtures.state(of: first) == Fixtures.state(of: clone))
        // Every name the two ever wrote is distinct.
        let names = try FileManager.default.subpathsOfDirectory(atPath: "\(setup.folder)/devices")
            .filter { $0.hasSuffix(".jsonl.gz") }.map { ($0 as NSString).lastPathComponent }
        #expect(Set(names).count == names.count)
    }

    @Test func compactionWritesTheCombinedSegmentFirstAndReadersOnEitherSideCatchUp() throws {
        let setup = try Setup()
        let laptop = try setup.store("laptop")
        let early = try setup.store("early")
        let late = try setup.store("late")
        try SyncRosters.oneRoster([laptop, early, late], folder: setup.folder)
        for index in 0..<3 {
            _ = try setup.note(laptop, "notă \(index)")
            _ = try SyncChecks.round(laptop, folder: setup.folder)
            if index == 1 { _ = try SyncChecks.round(early, folder: setup.folder) }
        }
        // The reader's copy of the folder as a sync tool leaves it mid-compaction: the combined segment has
        // arrived, one replaced segment is already gone, the others not yet.
        let own = "devices/\(laptop.deviceID)"
        let snapshot = try SimulatedSyncTool.files(in: setup.folder)
        // Segments younger than the grace period stay: the sync tools may still be carrying them.
        #expect(try SyncChecks.round(laptop, folder: setup.folder, compact: true).compactedInto == nil)
        setup.clock.advance(SyncFormat.compactionGrace + 1)
        let compacted = try SyncChecks.round(laptop, folder: setup.folder, compact: true)
        let combined = try #require(compacted.compactedInto)
        #expect(combined.firstSequence == 1 && compacted.removed.count == 3)
        #expect(try setup.files(under: own).filter { $0.hasSuffix(".gz") }
            == [(combined.path as NSString).lastPathComponent])
        let racing = setup.directory.path("racing")
        for (path, bytes) in snapshot where path != compacted.removed[0] {
            let url = URL(fileURLWithPath: "\(racing)/\(path)")
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        }
        try FileManager.default.copyItem(atPath: "\(setup.folder)/\(combined.path)",
                                         toPath: "\(racing)/\(combined.path)")
        let earlyRound = try SyncChecks.round(early, folder: racing)
        #expect(earlyRound.damaged.isEmpty && earlyRound.pending.isEmpty)
        _ = try SyncChecks.round(late, folder: setup.folder)
        #expect(try Fixtures.state(of: early).annotations == Fixtures.state(of: laptop).annotations)
        #expect(try Fixtures.state(of: late).annotations == Fixtures.state(of: laptop).annotations)
    }

    @Test func moreThanSixtyFourOwnSegmentsAreFoldedIntoOne() throws {
        let setup = try Setup()
        let laptop = try setup.store("laptop")
        let reader = try setup.store("reader")
        try SyncRosters.oneRoster([laptop, reader], folder: setup.folder)
        var last: SyncReport?
        for index in 0...SyncFormat.compactionThreshold {
            _ = try setup.note(laptop, "n\(index)")
            // The last round finds the others older than the grace period; the one it writes stays.
            if index == SyncFormat.compactionThreshold { setup.clock.advance(SyncFormat.compactionGrace + 1) }
            last = try SyncChecks.round(laptop, folder: setup.folder)
        }
        #expect(last?.compactedInto != nil && last?.removed.count == SyncFormat.compactionThreshold)
        #expect(try setup.files(under: "devices/\(laptop.deviceID)").filter { $0.hasSuffix(".gz") }.count == 2)
        _ = try SyncChecks.round(reader, folder: setup.folder)
        #expect(try reader.annotations().count == SyncFormat.compactionThreshold + 1)
    }

    @Test func aNewerFolderFormatIsRefusedUntouched() throws {
        let setup = try Setup()
        let laptop = try setup.store("laptop")
        let other = try setup.store("other")
        try SyncRosters.oneRoster([laptop, other], folder: setup.folder)
        _ = try setup.note(laptop, "x")
        let manifest = #"{"format":"marginalia-sync","formatVersion":4,"minReaderVersion":3}"# + "\n"
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: "\(setup.folder)/marginalia-sync.json"))
        let before = try SimulatedSyncTool.files(in: setup.folder)
        #expect {
            try laptop.sync(folder: setup.folder)
        } throws: { error in
            (error as? MarginaliaError)?.category == .newerVersion && "\(error)".contains("upgrade marginalia")
        }
        #expect(try SimulatedSyncTool.files(in: setup.folder) == before)
        // A device directory's own manifest of a newer format (signed by its device, of the roster) stops only the
        // reading of that directory: the round goes on, says to update, and leaves the directory as it is.
        let compatible = #"{"format":"marginalia-sync","formatVersion":3,"minReaderVersion":1}"# + "\n"
        try Data(compatible.utf8).write(to: URL(fileURLWithPath: "\(setup.folder)/marginalia-sync.json"))
        let otherID = other.deviceID
        let keys = try #require(try RosterLedger(db: other.db).keys(of: otherID))
        let newer = try SignedFile.encode(
            [("format", .string(SyncFormat.name)), ("formatVersion", .int(4)), ("minReaderVersion", .int(3)),
             ("device", .string(otherID)), ("formerDevices", .array([]))],
            kind: SyncFormat.name, keys: keys)
        try Data(newer).write(to: URL(fileURLWithPath: "\(setup.folder)/devices/\(otherID)/device.json"))
        let withDevice = try SimulatedSyncTool.files(in: setup.folder)
        let report = try laptop.sync(folder: setup.folder)
        #expect(report.written != nil)
        #expect(report.refused.map(\.path) == ["devices/\(otherID)"])
        #expect(report.refused.first?.reason.contains("update marginalia") == true)
        #expect(try SimulatedSyncTool.files(in: setup.folder).filter { $0.key.hasPrefix("devices/\(otherID)") }
            == withDevice.filter { $0.key.hasPrefix("devices/\(otherID)") })
    }

    @Test func aManifestStillBeingCopiedMakesARoundThatDoesNothingAndAForeignOneIsRefused() throws {
        let setup = try Setup()
        let laptop = try setup.store("laptop")
        _ = try setup.note(laptop, "x")
        let manifest = #"{"format":"marginalia-sync","formatVersion":1,"minReaderVersion":1}"# + "\n"
        let path = "\(setup.folder)/marginalia-sync.json"
        for cut in [0, 1, manifest.utf8.count / 2, manifest.utf8.count - 2] {
            try Data(manifest.utf8.prefix(cut)).write(to: URL(fileURLWithPath: path))
            let before = try SimulatedSyncTool.files(in: setup.folder)
            let report = try laptop.sync(folder: setup.folder)
            #expect(report.pending.map(\.path) == ["marginalia-sync.json"], "cut at \(cut)")
            #expect(report.written == nil && report.devices.isEmpty, "cut at \(cut)")
            #expect(try SimulatedSyncTool.files(in: setup.folder) == before, "cut at \(cut)")
        }
        // Whole, but not JSON: an error, not a file to wait for.
        try Data("<html>\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: MarginaliaError.self) { try laptop.sync(folder: setup.folder) }
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: path))
        #expect(try laptop.sync(folder: setup.folder).written != nil)
    }

    @Test func aStoreInsideTheFolderIsRefused() throws {
        let setup = try Setup()
        try FileManager.default.createDirectory(atPath: "\(setup.folder)/sub", withIntermediateDirectories: true)
        let inside = try ArchiveFixtures.store(setup.directory, "Sync/sub/user.db", clock: setup.clock)
        #expect {
            try inside.sync(folder: setup.folder)
        } throws: { error in
            (error as? MarginaliaError)?.category == .invalidArgument && "\(error)".contains("inside the folder")
        }
        #expect(!FileManager.default.fileExists(atPath: "\(setup.folder)/marginalia-sync.json"))
        #expect(!FileManager.default.fileExists(atPath: "\(setup.folder)/devices"))
    }
}
