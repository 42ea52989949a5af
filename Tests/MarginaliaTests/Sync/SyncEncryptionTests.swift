import Foundation
import Testing
@testable import Marginalia
import MarginaliaTestSupport

/// Encrypted sync in a roster: each device seals its segments to an age identity of its own for the roster's epoch,
/// wrapped in its keys file to the devices that may speak, the recovery keys and the recipients given; a segment is
/// taken only when it opens and a device of the roster signed it. Forged and unopenable segments are refused, never
/// merged; plain ones are read beside encrypted ones.
@Suite struct SyncEncryptionTests {
    typealias Setup = SyncTests.Setup
    typealias Fixtures = ArchiveFixtures

    static let noIdentity = "encrypted to a key this store does not hold (age): no identity was given"
    static let noneMatches = "encrypted to a key this store does not hold (no identity matches the file's recipients "
        + "(stanza types: X25519))"
    static let notSigned = "not signed: no device of this folder's roster wrote it"
    static let notAdmitted = "not admitted to this folder's roster: its files are left unread"
    static let wrongTag = "not authenticated: not written by a holder of the identity (the tag does not match)"

    /// The bytes of the file at `relative` in `folder`.
    static func bytes(_ folder: String, _ relative: String) throws -> [UInt8] {
        try Array(Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(relative)")))
    }

    /// Whether the file at `relative` in `folder` is an age file.
    static func isAge(_ folder: String, _ relative: String) throws -> Bool {
        AgeFormat.looksLikeAge(try bytes(folder, relative).prefix(22))
    }

    /// Whether `bytes` holds `text` (as UTF-8) anywhere.
    static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// The recipient of `store`'s newest epoch identity: what its segments are sealed to now.
    static func epochRecipient(of store: AnnotationStore) throws -> AgeRecipient {
        try #require(try RosterLedger(db: try store.db).epochKeys(of: store.deviceID).first).identity.recipient
    }

    /// The epoch keys files in `device`'s directory, as paths inside the folder.
    static func keysFiles(_ setup: Setup, of device: String) throws -> [String] {
        try setup.files(under: "devices/\(device)").filter(EpochKeysFile.isKeysFile).map { "devices/\(device)/\($0)" }
    }

    /// Two stores of one roster that encrypt converge with no identity given (each device's own key opens the
    /// other's epoch keys), each sealing to an epoch recipient of its own, and no file of the folder holds a note,
    /// a quote, a tag or a change record: the segments and the epoch keys files are age files. (Before rosters the
    /// stores shared one identity, given on every round.)
    @Test func twoStoresThatEncryptConvergeAndTheFolderHoldsNoPlaintext() throws {
        let setup = try Setup()
        // Admitted before either makes a change: the admission's rounds write roster files only, no plain segment.
        let (laptop, phone) = try RosterSyncTests.pair(setup)
        setup.clock.advance(1_000)
        try laptop.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.3", quote: "rude mari"),
                                    note: "taina nopţii senine", tags: ["ascunsissim"])
        _ = try setup.note(phone, "gând de pe telefon")
        let first = try SyncChecks.round(laptop, folder: setup.folder, encrypt: true)
        let laptopEpoch = try Self.epochRecipient(of: laptop)
        #expect(first.encryptedTo == [laptopEpoch.encoded])
        #expect(laptopEpoch != (try laptop.deviceKeys().recipient))
        #expect(try Self.isAge(setup.folder, try #require(first.written).path))
        let met = try SyncChecks.round(phone, folder: setup.folder, encrypt: true)
        let phoneEpoch = try Self.epochRecipient(of: phone)
        #expect(met.encryptedTo == [phoneEpoch.encoded] && phoneEpoch != laptopEpoch)
        #expect(met.changesApplied == 1 && met.refused.isEmpty && met.damaged.isEmpty)
        let back = try SyncChecks.round(laptop, folder: setup.folder)
        #expect(back.changesApplied == 1 && back.refused.isEmpty && back.damaged.isEmpty)
        #expect(try Fixtures.state(of: laptop) == Fixtures.state(of: phone))
        #expect(try laptop.annotations().count == 2)
        let files = try SimulatedSyncTool.files(in: setup.folder)
        let segments = files.keys.filter { $0.hasSuffix(".jsonl.gz") }
        #expect(segments.count == 2)
        let keys = try [laptop, phone].flatMap { try Self.keysFiles(setup, of: $0.deviceID) }
        #expect(keys.count == 2)
        for path in segments + keys { #expect(AgeFormat.looksLikeAge(files[path]!.prefix(22)), "\(path) is not age") }
        for (path, bytes) in files {
            for secret in ["taina nopţii", "rude mari", "ascunsissim", "gând de pe telefon", "changeId"] {
                #expect(!Self.contains(bytes, secret), "\(path) holds \(secret)")
            }
        }
    }

    /// Stock age recovers a segment in two steps with the identity whose recipient was given (`recipients:`, the
    /// CLI's `--recipient`): it opens the writer's epoch keys file, whose identities open the segment, which gunzips
    /// to the segment's lines: a header with no tag, the change, the trailer and the writer's signature. The segment
    /// is sealed to the epoch recipient alone: the given identity does not open it directly. (Before rosters it
    /// did, in one step, and the header carried an HMAC tag.)
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/age")
        && FileManager.default.isExecutableFile(atPath: "/bin/sh")))
    func stockAgeRecoversASegmentInTwoStepsWithTheGivenRecipientsIdentity() throws {
        let setup = try Setup()
        let identity = try AgeIdentity.generate()
        let keyFile = setup.directory.path("key.txt")
        try identity.identityFileText(created: Date()).write(toFile: keyFile, atomically: true, encoding: .utf8)
        let laptop = try setup.store("laptop")
        // In its roster before its first round with recipients (`aStoreInNoRosterEncryptsFromItsFirstRound…`).
        try laptop.foundRoster()
        _ = try setup.note(laptop, "pentru age")
        // No identity given: the device's own key seals and opens its epoch keys.
        let report = try SyncChecks.round(laptop, folder: setup.folder, recipients: [identity.recipient])
        let epoch = try Self.epochRecipient(of: laptop)
        #expect(report.encryptedTo == [epoch.encoded])
        let segment = "\(setup.folder)/\(try #require(report.written).path)"
        let keys = try Self.keysFiles(setup, of: laptop.deviceID)
        #expect(keys.count == 1)
        let keysFile = "\(setup.folder)/\(try #require(keys.first))"
        let direct = try ChildProcess("/usr/bin/age", ["-d", "-i", keyFile, segment]).run()
        #expect(direct.status == 1 && direct.stderr.contains("no identity matched any of the recipients"))
        let epochsFile = setup.directory.path("epochs.txt")
        let opened = try ChildProcess("/usr/bin/age", ["-d", "-i", keyFile, "-o", epochsFile, keysFile]).run()
        #expect(opened.status == 0, "\(opened.stderr)")
        let epochs = try AgeIdentity.parseFile(String(contentsOfFile: epochsFile, encoding: .utf8), file: epochsFile)
        #expect(epochs.map(\.recipient) == [epoch])
        let age = try ChildProcess("/bin/sh", ["-c", "/usr/bin/age -d -i \"$0\" \"$1\" | gzip -dc", epochsFile,
                                               segment]).run()
        #expect(age.status == 0, "\(age.stderr)")
        let lines = String(decoding: age.output, as: UTF8.self).split(separator: "\n")
        try #require(lines.count == 4)
        #expect(lines[0].hasPrefix("{\"type\":\"header\",\"format\":\"marginalia-sync-segment\""))
        #expect(lines[0].contains("\"device\":\"\(laptop.deviceID)\"") && !lines[0].contains("\"auth\""))
        #expect(lines[1].hasPrefix("{\"type\":\"change\"") && lines[1].contains("pentru age"))
        #expect(lines[2].hasPrefix("{\"type\":\"trailer\""))
        let roster = try #require(try laptop.roster()?.id)
        #expect(lines[3].hasPrefix("{\"type\":\"signature\",\"roster\":\"\(roster)\",\"by\":\"\(laptop.deviceID)\""))
    }

    /// A store in no roster yet, given recipients and no identity at its first round, founds its roster there and
    /// encrypts by its epoch, as on any later round: no identity is asked for (the recipients were once checked for
    /// one before the round founded the roster, which threw `.identityNeeded`).
    @Test func aStoreInNoRosterEncryptsFromItsFirstRoundWithRecipientsAndNoIdentity() throws {
        let setup = try Setup()
        let identity = try AgeIdentity.generate()
        let laptop = try setup.store("laptop")
        _ = try setup.note(laptop, "de la început")
        let report = try SyncChecks.round(laptop, folder: setup.folder, recipients: [identity.recipient])
        #expect(report.encryptedTo == [try Self.epochRecipient(of: laptop).encoded])
        #expect(try Self.isAge(setup.folder, try #require(report.written).path))
    }

    /// A segment of `changes` under `device`'s name, sealed with `keys` (to their recipient, with their tag when
    /// they make one, else `auth`) and signed by `signer` (unsigned when nil), written into `device`'s directory;
    /// its path inside the folder.
    static func forge(_ changes: [Change], device: String, log: String, auth: String? = nil, keys: SegmentKeys,
                      signer: SegmentSigner? = nil, in folder: String, nonce: String) throws -> String {
        let header = SegmentHeader(device: device, log: log, firstSequence: 1000, lastSequence: 1000,
                                   createdAt: "2026-12-01T00:00:00.000Z", auth: auth)
        let bytes = try SegmentFile.encode(header: header, changes: changes, keys: keys, signer: signer)
        let relative = "devices/\(device)/\(SyncFormat.segmentName(first: 1000, last: 1000, nonce: nonce))"
        try Data(bytes).write(to: URL(fileURLWithPath: "\(folder)/\(relative)"))
        return relative
    }

    /// A segment forged by whoever knows only a recipient (the laptop's epoch recipient, which its reports name, or
    /// the recipient given to it) is refused on every round and nothing of it is merged, whatever its tag: none, one
    /// made up, or even one made with the given recipient's identity (an HMAC tag no longer authenticates: the
    /// signature does), unsigned or signed under the laptop's name with a key not in the roster. Nobody is asked to
    /// write it again, and its supposed writer refuses it in its own directory too.
    @Test func aSegmentForgedByWhoeverKnowsOnlyARecipientIsRefusedAndNothingMerged() throws {
        let setup = try Setup()
        let identity = try AgeIdentity.generate()
        let (laptop, phone) = try RosterSyncTests.pair(setup)
        let shared = try setup.note(laptop, "a laptopului")
        _ = try SyncChecks.round(laptop, folder: setup.folder, recipients: [identity.recipient])
        let read = try SyncChecks.round(phone, folder: setup.folder, identities: [identity], encrypt: true)
        #expect(read.changesApplied == 1 && read.refused.isEmpty)
        let epoch = try Self.epochRecipient(of: laptop)
        let forged = Change(changeID: Identifiers.make(), hlc: HLC(milliseconds: ArchiveFixtures.epoch + 60_000,
                                                                     counter: 0),
                            device: laptop.deviceID, entityID: shared.id,
                            payload: .edit(note: .set("falsă"), color: nil, tags: [:]), wall: nil)
        let log = try laptop.createdAt()
        let toEpoch = try SegmentKeys.none.sealing(toEpoch: epoch, readingAlso: [])
        // A tag made with a key of the forger's own (an identity that is not the recipient's).
        let madeUp = try SegmentKeys.tag(key: SegmentKeys.authenticationKey(of: AgeIdentity.generate()),
                                         headerMAC: Array(repeating: 7, count: 32), device: laptop.deviceID)
        // Keys under the laptop's name that the roster does not hold, signing for the roster.
        let roster = try #require(try laptop.roster()?.id)
        let impostor = SegmentSigner(roster: roster, keys: try DeviceKeys.generate(device: laptop.deviceID))
        let untagged = try Self.forge([forged], device: laptop.deviceID, log: log, keys: toEpoch, in: setup.folder,
                                      nonce: "0badc0de")
        let mistagged = try Self.forge([forged], device: laptop.deviceID, log: log, auth: madeUp, keys: toEpoch,
                                       in: setup.folder, nonce: "0badf00d")
        let tagged = try Self.forge([forged], device: laptop.deviceID, log: log, keys: SegmentKeys(
            recipients: [identity.recipient], identities: [identity], folder: setup.folder), in: setup.folder,
                                    nonce: "0badbeef")
        let missigned = try Self.forge([forged], device: laptop.deviceID, log: log, keys: toEpoch, signer: impostor,
                                       in: setup.folder, nonce: "0badfeed")
        let impostorReason = "the signature does not match device \(laptop.deviceID)'s key: altered, or forged"
        let expected = [SyncFileIssue(path: tagged, reason: Self.notSigned),
                        SyncFileIssue(path: untagged, reason: Self.notSigned),
                        SyncFileIssue(path: mistagged, reason: Self.wrongTag),
                        SyncFileIssue(path: missigned, reason: impostorReason)]
        for _ in 0..<2 {
            let report = try SyncChecks.round(phone, folder: setup.folder, identities: [identity])
            #expect(report.refused == expected)
            #expect(report.damaged.isEmpty && report.changesApplied == 0)
            #expect(try phone.annotation(id: shared.id).note == "a laptopului")
        }
        // Nothing asks the laptop to write them again; it refuses them in its own directory too.
        #expect(!FileManager.default.fileExists(atPath: "\(setup.folder)/devices/\(phone.deviceID)/unreadable.json"))
        let own = try SyncChecks.round(laptop, folder: setup.folder, identities: [identity])
        #expect(own.refused == expected && own.renewedFromDeviceID == nil)
        #expect(try laptop.annotation(id: shared.id).note == "a laptopului")
    }

    /// A segment encrypted to keys this store does not hold is refused, nothing of it merged, and read once the
    /// store can open it: a store that joined the roster and is not admitted yet opens no device's epoch keys, until
    /// it is given the identity of a recipient the writer wraps them to, or until it is admitted (the writer's next
    /// round wraps them to it too). (Before rosters: a segment encrypted to an identity not given.)
    @Test func aSegmentEncryptedToKeysNotHeldIsRefusedUntilTheStoreCanOpenIt() throws {
        let setup = try Setup()
        let identity = try AgeIdentity.generate()
        let laptop = try setup.store("laptop")
        let phone = try setup.store("phone")
        let tablet = try setup.store("tablet")
        // Invited before the laptop's first round (which founds its roster), joined, not admitted yet.
        try SyncRosters.join(phone, invitedBy: laptop)
        try SyncRosters.join(tablet, invitedBy: laptop)
        let note = try setup.note(laptop, "a laptopului")
        let written = try #require(try SyncChecks.round(
            laptop, folder: setup.folder, recipients: [identity.recipient]).written)
        // Each waiting device also finds the other's directory, whose files it leaves unread.
        func waiting(_ store: AnnotationStore) -> SyncFileIssue {
            SyncFileIssue(path: "devices/\(store.deviceID)", reason: Self.notAdmitted)
        }
        let unopened = SyncFileIssue(path: written.path, reason: Self.noIdentity)
        for (store, others) in [(phone, [SyncFileIssue]()), (tablet, [waiting(phone)])] {
            let blind = try SyncChecks.round(store, folder: setup.folder)
            #expect(blind.notSpeaking == SyncRosters.waiting)
            #expect(blind.refused == ([unopened] + others).sorted { $0.path < $1.path })
            #expect(blind.changesApplied == 0 && blind.damaged.isEmpty && blind.encryptedTo.isEmpty)
            #expect(try store.annotations().isEmpty)
        }
        // Given the identity, the phone opens the laptop's epoch keys while it waits.
        let keyed = try SyncChecks.round(phone, folder: setup.folder, identities: [identity])
        #expect(keyed.notSpeaking == SyncRosters.waiting)
        #expect(keyed.refused == [waiting(tablet)] && keyed.changesApplied == 1 && keyed.damaged.isEmpty)
        #expect(try phone.annotations().map(\.id) == [note.id])
        // The tablet, given no identity, opens nothing until the laptop has admitted it.
        let still = try SyncChecks.round(tablet, folder: setup.folder)
        #expect(still.refused == [unopened, waiting(phone)].sorted { $0.path < $1.path })
        #expect(try still.changesApplied == 0 && tablet.annotations().isEmpty)
        let admitting = try SyncChecks.round(laptop, folder: setup.folder)
        #expect(Set(admitting.admitted.map(\.device)) == [phone.deviceID, tablet.deviceID])
        let admitted = try SyncChecks.round(tablet, folder: setup.folder)
        #expect(admitted.notSpeaking == nil)
        #expect(admitted.refused.isEmpty && admitted.changesApplied == 1 && admitted.damaged.isEmpty)
        #expect(try tablet.annotations().map(\.id) == [note.id])
    }

    /// Plain and encrypted segments side by side all merge: a device that reads them meets the plain segments
    /// written before encryption was turned on (its writer's and another device's) and the encrypted ones after, and
    /// a store that turns encryption on later still reads the plain segments written before.
    @Test func plainAndEncryptedSegmentsSideBySideAllMerge() throws {
        let setup = try Setup()
        let laptop = try setup.store("laptop")
        let phone = try setup.store("phone")
        let tablet = try setup.store("tablet")
        try SyncRosters.oneRoster([laptop, phone, tablet], folder: setup.folder)
        _ = try setup.note(laptop, "pe faţă")
        let plain = try #require(try SyncChecks.round(laptop, folder: setup.folder).written)
        #expect(try GzipReader(source: ByteArraySource(Self.bytes(setup.folder, plain.path))).readAll().count > 0)
        _ = try setup.note(phone, "tot pe faţă")
        let phonePlain = try SyncChecks.round(phone, folder: setup.folder)
        #expect(phonePlain.changesApplied == 1)
        #expect(Array(try Self.bytes(setup.folder, try #require(phonePlain.written).path).prefix(2)) == [0x1F, 0x8B])
        _ = try setup.note(laptop, "ascunsă")
        let sealed = try SyncChecks.round(laptop, folder: setup.folder, encrypt: true)
        #expect(sealed.changesApplied == 1)
        #expect(try Self.isAge(setup.folder, try #require(sealed.written).path))
        // The tablet turns encryption on at its first round that reads: two plain segments, one encrypted.
        let report = try SyncChecks.round(tablet, folder: setup.folder, encrypt: true)
        #expect(report.changesApplied == 3 && report.refused.isEmpty && report.damaged.isEmpty)
        #expect(report.devices.first { $0.device == laptop.deviceID }?.segmentsApplied == 2)
        #expect(report.devices.first { $0.device == phone.deviceID }?.segmentsApplied == 1)
        let last = try SyncChecks.round(phone, folder: setup.folder)
        #expect(last.changesApplied == 1 && last.refused.isEmpty)
        #expect(try Fixtures.state(of: tablet).annotations == Fixtures.state(of: laptop).annotations)
        #expect(try Fixtures.state(of: phone).annotations == Fixtures.state(of: laptop).annotations)
        #expect(try laptop.annotations().count == 3)
    }

    /// Recipients given once are remembered by the store: every later round encrypts, to the device's epoch
    /// recipient, and the keys file stays wrapped to the recipient given. No identity is needed to write (before
    /// rosters a store that encrypted refused to write without the identity, which made its HMAC tag; now its own
    /// device key opens its epoch keys). A compaction's output is encrypted too, and read whole by another device.
    /// `encrypt: false` (the CLI's `--plain`) turns encryption off explicitly: what is written next is plain, and
    /// stays plain.
    @Test func recipientsAreRememberedCompactionIsEncryptedAndPlainIsAnExplicitChoice() throws {
        let setup = try Setup()
        let identity = try AgeIdentity.generate()
        let laptop = try setup.store("laptop")
        let reader = try setup.store("reader")
        try SyncRosters.oneRoster([laptop, reader], folder: setup.folder)
        let own = "devices/\(laptop.deviceID)"
        for index in 0..<4 {
            _ = try setup.note(laptop, "notă \(index)")
            let recipients = index == 0 ? [identity.recipient] : nil
            let report = try SyncChecks.round(laptop, folder: setup.folder, recipients: recipients)
            #expect(report.encryptedTo == [try Self.epochRecipient(of: laptop).encoded], "round \(index)")
            #expect(try Self.isAge(setup.folder, try #require(report.written).path), "round \(index)")
        }
        // The remembered recipient's identity opens the keys file, which holds the epoch identity sealed to.
        let keys = try #require(try Self.keysFiles(setup, of: laptop.deviceID).first)
        let plaintext = try AgeDecryptingSource.decrypt(try Self.bytes(setup.folder, keys),
                                                        with: .identities([identity]))
        #expect(try AgeIdentity.parseFile(String(decoding: plaintext, as: UTF8.self), file: keys).map(\.recipient)
            == [try Self.epochRecipient(of: laptop)])
        setup.clock.advance(SyncFormat.compactionGrace + 1)
        let compacted = try SyncChecks.round(laptop, folder: setup.folder, compact: true)
        let combined = try #require(compacted.compactedInto)
        #expect(combined.firstSequence == 1 && combined.changes == 4 && compacted.removed.count == 4)
        #expect(try Self.isAge(setup.folder, combined.path))
        let read = try SyncChecks.round(reader, folder: setup.folder)
        #expect(read.changesApplied == 4 && read.refused.isEmpty && read.damaged.isEmpty)
        // Turned off explicitly: what is written next is plain, and stays so on the rounds after.
        _ = try setup.note(laptop, "iar pe faţă")
        let off = try SyncChecks.round(laptop, folder: setup.folder, encrypt: false)
        #expect(off.encryptedTo.isEmpty)
        #expect(Array(try Self.bytes(setup.folder, try #require(off.written).path).prefix(2)) == [0x1F, 0x8B])
        _ = try setup.note(laptop, "tot pe faţă")
        let after = try SyncChecks.round(laptop, folder: setup.folder)
        #expect(after.encryptedTo.isEmpty)
        #expect(Array(try Self.bytes(setup.folder, try #require(after.written).path).prefix(2)) == [0x1F, 0x8B])
        #expect(try setup.files(under: own).filter { $0.hasSuffix(".gz") }.count == 3)
        let plainRead = try SyncChecks.round(reader, folder: setup.folder)
        #expect(plainRead.changesApplied == 2 && plainRead.refused.isEmpty && plainRead.damaged.isEmpty)
    }
}

extension SyncEncryptionTests {
    /// An encrypted segment cut short (a copy in progress) is pending, not damaged or refused; one whose age header
    /// was altered is damaged, nothing of it merged, and its writer, told by the reader's status file, writes its
    /// changes again, which the reader then takes.
    @Test func anEncryptedSegmentCutShortIsPendingAndOneAlteredIsDamagedAndWrittenAgain() throws {
        let setup = try Setup()
        let (laptop, phone) = try RosterSyncTests.pair(setup)
        let note = try setup.note(laptop, "o notă")
        let segment = try #require(try SyncChecks.round(laptop, folder: setup.folder, encrypt: true).written)
        let path = "\(setup.folder)/\(segment.path)"
        let whole = try Self.bytes(setup.folder, segment.path)
        #expect(AgeFormat.looksLikeAge(whole.prefix(22)))
        for cut in [10, whole.count - 5] {
            try Data(whole.prefix(cut)).write(to: URL(fileURLWithPath: path))
            let report = try SyncChecks.round(phone, folder: setup.folder)
            #expect(report.pending.map(\.path) == [segment.path] && report.damaged.isEmpty && report.refused.isEmpty,
                    "cut at \(cut)")
        }
        // A character of the header's MAC changed: the header no longer authenticates.
        let line = Array("\n--- ".utf8)
        let mac = try #require((0..<(whole.count - 5)).first { whole[$0..<($0 + 5)].elementsEqual(line) })
        var altered = whole
        altered[mac + 8] = altered[mac + 8] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        try Data(altered).write(to: URL(fileURLWithPath: path))
        let damaged = try SyncChecks.round(phone, folder: setup.folder)
        #expect(damaged.damaged.map(\.path) == [segment.path] && damaged.refused.isEmpty)
        #expect(try phone.annotations().isEmpty)
        // The writer reads the status file and writes the changes again.
        #expect(try SyncChecks.round(laptop, folder: setup.folder).republished == [segment.path])
        let healed = try SyncChecks.round(phone, folder: setup.folder)
        #expect(healed.changesApplied == 1 && healed.damaged.isEmpty && healed.refused.isEmpty)
        #expect(try phone.annotations().map(\.id) == [note.id])
    }
}
