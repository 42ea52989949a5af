import Foundation
import Testing
@testable import Marginalia
import MarginaliaTestSupport

private let hasAge = FileManager.default.isExecutableFile(atPath: "/usr/bin/age")

/// Encryption by epochs: each device seals its segments to a key of its own for the roster's epoch, wrapped to the
/// devices that may speak and to recovery keys; a revocation starts a new epoch, so a revoked device opens nothing
/// written afterwards. Checked with stock age where it matters.
@Suite struct EpochEncryptionTests {
    typealias Setup = SyncTests.Setup

    /// The segments (paths inside the folder) of `device` now, and every epoch keys file.
    static func files(_ setup: Setup, of device: String) throws -> [String] {
        try setup.files(under: "devices/\(device)").map { "devices/\(device)/\($0)" }
    }

    static func write(_ identities: [AgeIdentity], to path: String) throws {
        try Data(identities.map { $0.encoded + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path))
    }

    /// `age -d -i KEY FILE`; the plaintext, or nil when age refuses.
    static func age(_ key: String, _ file: String) throws -> Data? {
        let result = try ChildProcess("/usr/bin/age", ["-d", "-i", key, file]).run()
        return result.status == 0 ? result.output : nil
    }

    @Test func segmentsAreSealedToEpochKeysThatEveryAdmittedDeviceOpens() throws {
        let setup = try Setup()
        let (laptop, phone) = try RosterSyncTests.pair(setup)
        _ = try laptop.sync(folder: setup.folder, encrypt: true)
        _ = try setup.note(laptop, "un gând ascuns")
        let report = try laptop.sync(folder: setup.folder)
        let written = try #require(report.written)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: "\(setup.folder)/\(written.path)"))
        #expect(bytes.starts(with: Array("age-encryption.org/v1".utf8)))
        #expect(!String(decoding: bytes, as: UTF8.self).contains("gând"))
        #expect(report.encryptedTo.count == 1)
        // The keys file is the folder's own: no round names it as pending or leftover.
        #expect(report.pending.isEmpty && report.leftovers.isEmpty)
        // The phone opens it with no identity given: its own device key opens the laptop's epoch keys.
        let read = try phone.sync(folder: setup.folder)
        #expect(read.changesApplied == 1 && read.refused.isEmpty)
        #expect(try phone.annotations().first?.note == "un gând ascuns")
        // The store encrypts wherever it syncs: the same folder by another path gets no plain segment.
        let moved = setup.directory.path("Moved")
        try FileManager.default.moveItem(atPath: setup.folder, toPath: moved)
        _ = try setup.note(laptop, "după mutare")
        let elsewhere = try #require(try laptop.sync(folder: moved).written)
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(moved)/\(elsewhere.path)"))
            .starts(with: Array("age-encryption.org/v1".utf8)))
    }

    @Test(.enabled(if: hasAge))
    func stockAgeRecoversEverythingInTwoStepsWithTheRecoveryKey() throws {
        let setup = try Setup()
        let (laptop, _) = try RosterSyncTests.pair(setup)
        let paper = try laptop.addRecoveryKey()
        let key = setup.directory.path("recovery.txt")
        try Self.write([paper], to: key)
        _ = try setup.note(laptop, "pentru hârtie")
        let written = try #require(try laptop.sync(folder: setup.folder, encrypt: true).written)
        let keysFile = try #require(try Self.files(setup, of: laptop.deviceID).first { $0.contains("/keys-") })
        let epochs = try #require(try Self.age(key, "\(setup.folder)/\(keysFile)"))
        let epochKey = setup.directory.path("epochs.txt")
        try epochs.write(to: URL(fileURLWithPath: epochKey))
        let segment = try #require(try Self.age(epochKey, "\(setup.folder)/\(written.path)"))
        let text = String(decoding: try GzipReader(source: ByteArraySource(Array(segment))).readAll(), as: UTF8.self)
        #expect(text.contains("pentru hârtie"))
    }

    @Test(.enabled(if: hasAge))
    func afterARevocationTheRevokedDeviceOpensNothingWrittenAfterwards() throws {
        let setup = try Setup()
        let (laptop, phone) = try RosterSyncTests.pair(setup)
        let tablet = try setup.store("tablet")
        try RosterSyncTests.admit(tablet, by: laptop, folder: setup.folder)
        for store in [laptop, phone, tablet] { _ = try store.sync(folder: setup.folder, encrypt: true) }
        for store in [laptop, phone, tablet] { _ = try store.sync(folder: setup.folder) }
        // What the phone holds before it is lost: its device identity and every epoch key it can open.
        let phoneKeys = try #require(try RosterLedger(db: try phone.db).keys(of: phone.deviceID))
        var held = [phoneKeys.identity]
        for device in [laptop.deviceID, tablet.deviceID] {
            for file in try Self.files(setup, of: device) where file.contains("/keys-") {
                let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: "\(setup.folder)/\(file)")))
                let plaintext = try AgeDecryptingSource.decrypt(bytes, with: .identities([phoneKeys.identity]))
                held += try AgeIdentity.parseFile(String(decoding: plaintext, as: UTF8.self), file: file)
            }
        }
        #expect(held.count >= 3)
        let heldFile = setup.directory.path("held.txt")
        try Self.write(held, to: heldFile)
        try laptop.revokeDevice(phone.deviceID)
        // One round on each remaining device.
        _ = try laptop.sync(folder: setup.folder)
        _ = try tablet.sync(folder: setup.folder)
        _ = try setup.note(laptop, "după pierdere")
        _ = try setup.note(tablet, "și de pe tabletă")
        let after = try [laptop, tablet].map { try #require(try $0.sync(folder: setup.folder).written) }
        for segment in after {
            #expect(try Self.age(heldFile, "\(setup.folder)/\(segment.path)") == nil)
        }
        for device in [laptop.deviceID, tablet.deviceID] {
            for file in try Self.files(setup, of: device) where file.contains("/keys-") {
                #expect(try Self.age(heldFile, "\(setup.folder)/\(file)") == nil)
            }
        }
        // The devices that remain read each other's new segments.
        _ = try laptop.sync(folder: setup.folder)
        #expect(try laptop.annotations().map(\.note).contains("și de pe tabletă"))
        _ = try tablet.sync(folder: setup.folder)
        #expect(try tablet.annotations().map(\.note).contains("după pierdere"))
    }

    @Test func aDeviceThatMissedThreeRotationsWhileOfflineRejoinsWithNothingLost() throws {
        let setup = try Setup()
        let (laptop, reader) = try RosterSyncTests.pair(setup)
        let extra = try (0..<3).map { try setup.store("extra\($0)") }
        for store in extra { try RosterSyncTests.admit(store, by: laptop, folder: setup.folder) }
        _ = try laptop.sync(folder: setup.folder, encrypt: true)
        _ = try reader.sync(folder: setup.folder, encrypt: true)
        // The reader goes offline; three devices are revoked, one at a time, with a note and a round between.
        for (index, store) in extra.enumerated() {
            try laptop.revokeDevice(store.deviceID)
            _ = try setup.note(laptop, "rotația \(index + 1)")
            _ = try laptop.sync(folder: setup.folder)
        }
        #expect(try laptop.roster()?.epoch == 3)
        let back = try reader.sync(folder: setup.folder)
        #expect(back.refused.allSatisfy { !$0.path.contains(laptop.deviceID) })
        #expect(try Set(reader.annotations().compactMap(\.note)) == ["rotația 1", "rotația 2", "rotația 3"])
        #expect(try reader.verify().isHealthy)
    }
}
