import Foundation
import Testing
@testable import Marginalia
import MarginaliaTestSupport

/// Encrypted sync: segments written as age files to the folder's recipients, authenticated by a key only holders
/// of the identity have, read beside plain ones; forged and foreign segments refused, never merged.
@Suite struct SyncEncryptionTests {
    typealias Setup = SyncTests.Setup
    typealias Fixtures = ArchiveFixtures

    static let noIdentity = "encrypted to a key this store does not hold (age): no identity was given"
    static let noTag = "not authenticated: not written by a holder of the identity (the header has no tag)"
    static let wrongTag = "not authenticated: not written by a holder of the identity (the tag does not match)"

    /// The bytes of the file at `relative` in `folder`.
    static func bytes(_ folder: String, _ relative: String) throws -> [UInt8] {
        try Array(Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(relative)")))
    }

    /// Whether `bytes` holds `text` (as UTF-8) anywhere.
    static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    @Test func twoStoresSharingAnIdentityConvergeAndTheFolderHoldsNoPlaintext() throws {
        let setup = try Setup()
        let identity = try AgeIdentity.generate()
        let laptop = try setup.store("laptop")
        let phone = try setup.store("phone")
        setup.clock.advance(1_000)
        try laptop.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.3", quote: "rude mari"),
                                    note: "taina nopţii senine", tags: ["ascunsissim"])
        _ = try setup.note(phone, "gând de pe telefon")
        let first = try SyncChecks.round(laptop, folder: setup.folder, recipients: [identity.recipient],
                                         identities: [identity])
        #expect(first.encryptedTo == [identity.recipient.encoded])
        let written = try #require(first.written)
        #expect(AgeFormat.looksLikeAge(try Self.bytes(setup.folder, written.path).prefix(22)))
        let met = try SyncChecks.round(phone, folder: setup.folder, recipients: [identity.recipient],
                                       identities: [identity])
        #expect(met.changesApplied == 1 && met.refused.isEmpty && met.damaged.isEmpty)
        let back = try SyncChecks.round(laptop, folder: setup.folder, identities: [identity])
        #expect(back.changesApplied == 1 && back.refused.isEmpty && back.damaged.isEmpty)
        #expect(try Fixtures.state(of: laptop) == Fixtures.state(of: phone))
        #expect(try laptop.annotations().count == 2)
        let files = try SimulatedSyncTool.files(in: setup.folder)
        let segments = files.keys.filter { $0.hasSuffix(".jsonl.gz") }
        #expect(segments.count == 2)
        for path in segments { #expect(AgeFormat.looksLikeAge(files[path]!.prefix(22)), "\(path) is not age") }
        for (path, bytes) in files {
            for secret in ["taina nopţii", "rude mari", "ascunsissim", "gând de pe telefon", "changeId"] {
                #expect(!Self.contains(bytes, secret), "\(path) holds \(secret)")
            }
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/age")
        && FileManager.default.isExecutableFile(atPath: "/bin/sh")))
    func theAgeToolDecryptsASegmentToTheGzipSegment() throws {
        let setup = try Setup()
        let identity = try AgeIdentity.generate()
        let keyFile = setup.directory.path("key.txt")
        try identity.identityFileText(created: Date()).write(toFile: keyFile, atomically: true, encoding: .utf8)
        let laptop = try setup.store("laptop")
        _ = try setup.note(laptop, "pentru age")
        let report = try SyncChecks.round(laptop, folder: setup.folder, recipients: [identity.recipient],
                                          identities: [identity])
        let segment = "\(setup.folder)/\(try #require(report.written).path)"
        let age = try ChildProcess("/bin/sh", ["-c", "/usr/bin/age -d -i \"$0\" \"$1\" | gzip -dc", keyFile, segment])
            .run()
        #expect(age.status == 0, "\(age.stderr)")
        let lines = String(decoding: age.output, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("{\"type\":\"header\",\"format\":\"marginalia-sync-segment\""))
        #expect(lines[0].contains(",\"auth\":\""))
        #expect(lines[1].hasPrefix("{\"type\":\"change\"") && lines[1].contains("pentru age"))
        #expect(lines[2].hasPrefix("{\"type\":\"trailer\""))
    }

    /// A segment of `changes` under `device`'s name, encrypted to `recipient` by someone who knows only that, with
    /// the tag `auth` (or none), written into `device`'s directory; its path inside the folder.
    static func forge(_ changes: [Change], device: String, log: String, auth: String?, to recipient: AgeRecipient,
                      in folder: String, nonce: String) throws -> String {
        let header = SegmentHeader(device: device, log: log, firstSequence: 1000, lastSequence: 1000,
                                   createdAt: "2026-12-01T00:00:00.000Z", auth: auth)
        let plain = try SegmentFile.encode(header: header, changes: changes)
        let name = SyncFormat.segmentName(first: 1000, last: 1000, nonce: nonce)
        let relative = "devices/\(device)/\(name)"
        try Data(try AgeEncryptingSink.encrypt(plain, to: .recipients([recipient])))
            .write(to: URL(fileURLWithPath: "\(folder)/\(relative)"))
        return relative
    }

    @Test func aSegmentForgedByWhoeverKnowsOnlyTheRecipientIsRefusedAndNothingMerged() throws {
        let setup = try Setup()
        let identity = try AgeIdentity.generate()
        let laptop = try setup.store("laptop")
        let phone = try setup.store("phone")
        let shared = try setup.note(laptop, "a laptopului")
        _ = try SyncChecks.round(laptop, folder: setup.folder, recipients: [identity.recipient],
                                 identities: [identity])
        _ = try SyncChecks.round(phone, folder: setup.folder, recipients: [identity.recipient],
                                 identities: [identity])
        let forged = Change(changeID: Identifiers.make(), hlc: HLC(milliseconds: ArchiveFixtures.epoch + 60_000,
                                                                     counter: 0),
                            device: laptop.deviceID, entityID: shared.id,
                            payload: .edit(note: .set("falsă"), color: nil, tags: [:]), wall: nil)
        // A tag made with a key of the forger's own (an identity that is not the recipient's).
        let madeUp = try SegmentKeys.tag(key: SegmentKeys.authenticationKey(of: AgeIdentity.generate()),
                                         headerMAC: Array(repeating: 7, count: 32), device: laptop.deviceID)
        let log = try laptop.createdAt()
        let untagged = try Self.forge([forged], device: laptop.deviceID, log: log, auth: nil,
                                      to: identity.recipient, in: setup.folder, nonce: "0badc0de")
        let mistagged = try Self.forge([forged], device: laptop.deviceID, log: log, auth: madeUp,
                                       to: identity.recipient, in: setup.folder, nonce: "0badf00d")
        let expected = [SyncFileIssue(path: untagged, reason: Self.noTag),
                        SyncFileIssue(path: mistagged, reason: Self.wrongTag)]
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

    @Test func aSegmentEncryptedToAnotherIdentityOrReadWithoutOneIsRefusedUntilTheKeyIsGiven() throws {
        let setup = try Setup()
        let identity = try AgeIdentity.generate()
        let stranger = try AgeIdentity.generate()
        let laptop = try setup.store("laptop")
        let other = try setup.store("other")
        let phone = try setup.store("phone")
        let note = try setup.note(laptop, "a laptopului")
        _ = try setup.note(other, "a altcuiva")
        let written = try #require(try SyncChecks.round(
            laptop, folder: setup.folder, recipients: [identity.recipient], identities: [identity]).written)
        let foreign = try #require(try SyncChecks.round(
            other, folder: setup.folder, recipients: [stranger.recipient], identities: [stranger]).written)
        let blind = try SyncChecks.round(phone, folder: setup.folder)
        let expected = [SyncFileIssue(path: written.path, reason: Self.noIdentity),
                        SyncFileIssue(path: foreign.path, reason: Self.noIdentity)]
        #expect(blind.refused == expected.sorted { $0.path < $1.path })
        #expect(blind.changesApplied == 0 && blind.damaged.isEmpty && blind.encryptedTo.isEmpty)
        #expect(try phone.annotations().isEmpty)
        // Given the identity, it reads the laptop's; the stranger's stays refused.
        let keyed = try SyncChecks.round(phone, folder: setup.folder, identities: [identity])
        #expect(keyed.refused == [SyncFileIssue(path: foreign.path, reason: "encrypted to a key this store does not "
            + "hold (no identity matches the file's recipients (stanza types: X25519))")])
        #expect(keyed.changesApplied == 1 && keyed.damaged.isEmpty)
        #expect(try phone.annotations().map(\.id) == [note.id])
    }

    @Test func plainAndEncryptedSegmentsSideBySideBothMerge() throws {
        let setup = try Setup()
        let identity = try AgeIdentity.generate()
        let laptop = try setup.store("laptop")
        let phone = try setup.store("phone")
        _ = try setup.note(laptop, "pe faţă")
        let plain = try #require(try SyncChecks.round(laptop, folder: setup.folder).written)
        #expect(try GzipReader(source: ByteArraySource(Self.bytes(setup.folder, plain.path))).readAll().count > 0)
        _ = try setup.note(laptop, "ascunsă")
        let sealed = try #require(try SyncChecks.round(laptop, folder: setup.folder, recipients: [identity.recipient],
                                                       identities: [identity]).written)
        #expect(AgeFormat.looksLikeAge(try Self.bytes(setup.folder, sealed.path).prefix(22)))
        let report = try SyncChecks.round(phone, folder: setup.folder, identities: [identity])
        #expect(report.changesApplied == 2 && report.refused.isEmpty && report.damaged.isEmpty)
        #expect(report.devices.first { $0.device == laptop.deviceID }?.segmentsApplied == 2)
        #expect(try Fixtures.state(of: phone).annotations == Fixtures.state(of: laptop).annotations)
    }

    @Test func recipientsAreRememberedCompactionIsEncryptedAndAnIdentityIsRequired() throws {
        let setup = try Setup()
        let identity = try AgeIdentity.generate()
        let laptop = try setup.store("laptop")
        let own = "devices/\(laptop.deviceID)"
        for index in 0..<3 {
            _ = try setup.note(laptop, "notă \(index)")
            let recipients = index == 0 ? [identity.recipient] : nil
            let report = try SyncChecks.round(laptop, folder: setup.folder, recipients: recipients,
                                              identities: [identity])
            #expect(report.encryptedTo == [identity.recipient.encoded])
            #expect(AgeFormat.looksLikeAge(try Self.bytes(setup.folder, try #require(report.written).path).prefix(22)))
        }
        // Recipients remembered, no identity to authenticate with: refused before anything is written.
        _ = try setup.note(laptop, "fără cheie")
        let before = try SimulatedSyncTool.files(in: setup.folder)
        #expect {
            try laptop.sync(folder: setup.folder)
        } throws: { error in
            guard let error = error as? MarginaliaError, case .format(let format) = error.reason,
                  let folderError = format as? SyncFolderError else { return false }
            return error.category == .invalidArgument && folderError.kind == .identityNeeded
        }
        #expect(try SimulatedSyncTool.files(in: setup.folder) == before)
        setup.clock.advance(SyncFormat.compactionGrace + 1)
        let compacted = try SyncChecks.round(laptop, folder: setup.folder, compact: true, identities: [identity])
        let combined = try #require(compacted.compactedInto)
        #expect(combined.firstSequence == 1 && compacted.removed.count == 3)
        #expect(AgeFormat.looksLikeAge(try Self.bytes(setup.folder, combined.path).prefix(22)))
        let reader = try setup.store("reader")
        let read = try SyncChecks.round(reader, folder: setup.folder, identities: [identity])
        #expect(read.changesApplied == 4 && read.refused.isEmpty && read.damaged.isEmpty)
        // An empty list forgets them: what is written next is plain.
        _ = try setup.note(laptop, "iar pe faţă")
        let forgotten = try SyncChecks.round(laptop, folder: setup.folder, recipients: [])
        #expect(forgotten.encryptedTo.isEmpty)
        let plain = try Self.bytes(setup.folder, try #require(forgotten.written).path)
        #expect(Array(plain.prefix(2)) == [0x1F, 0x8B])
        #expect(try setup.files(under: own).filter { $0.hasSuffix(".gz") }.count == 3)
    }
}

extension SyncEncryptionTests {
    @Test func anEncryptedSegmentCutShortIsPendingAndOneAlteredIsDamagedAndWrittenAgain() throws {
        let setup = try Setup()
        let identity = try AgeIdentity.generate()
        let laptop = try setup.store("laptop")
        let phone = try setup.store("phone")
        let note = try setup.note(laptop, "o notă")
        let segment = try #require(try SyncChecks.round(
            laptop, folder: setup.folder, recipients: [identity.recipient], identities: [identity]).written)
        let path = "\(setup.folder)/\(segment.path)"
        let whole = try Self.bytes(setup.folder, segment.path)
        for cut in [10, whole.count - 5] {
            try Data(whole.prefix(cut)).write(to: URL(fileURLWithPath: path))
            let report = try SyncChecks.round(phone, folder: setup.folder, identities: [identity])
            #expect(report.pending.map(\.path) == [segment.path] && report.damaged.isEmpty && report.refused.isEmpty,
                    "cut at \(cut)")
        }
        // A character of the header's MAC changed: the header no longer authenticates.
        let line = Array("\n--- ".utf8)
        let mac = try #require((0..<(whole.count - 5)).first { whole[$0..<($0 + 5)].elementsEqual(line) })
        var altered = whole
        altered[mac + 8] = altered[mac + 8] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        try Data(altered).write(to: URL(fileURLWithPath: path))
        let damaged = try SyncChecks.round(phone, folder: setup.folder, identities: [identity])
        #expect(damaged.damaged.map(\.path) == [segment.path] && damaged.refused.isEmpty)
        #expect(try phone.annotations().isEmpty)
        // The writer reads the status file and writes the changes again.
        #expect(try SyncChecks.round(laptop, folder: setup.folder, identities: [identity]).republished
            == [segment.path])
        let healed = try SyncChecks.round(phone, folder: setup.folder, identities: [identity])
        #expect(healed.changesApplied == 1 && healed.damaged.isEmpty)
        #expect(try phone.annotations().map(\.id) == [note.id])
    }
}
