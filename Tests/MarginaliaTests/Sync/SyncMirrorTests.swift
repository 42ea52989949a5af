import Foundation
import Testing
@testable import Marginalia

/// Storage as a directory the library is never given: the transfers copy between it and each store's mirror, as
/// an app's would through a bucket. It keeps the promises `SyncTransfer` asks for and checks that the library
/// names only the store's own files to push.
final class DirectoryTransfer: SyncTransfer {
    let storage: String
    /// Whether the next push fails (as a network that is down), after sending nothing.
    var failPush = false
    /// Every push, in order.
    private(set) var pushes: [SyncTransferFiles] = []
    /// How many files the pulls copied into mirrors.
    private(set) var pulled = 0

    struct Offline: Error {}

    init(storage: String) throws {
        self.storage = storage
        try FileManager.default.createDirectory(atPath: "\(storage)/devices", withIntermediateDirectories: true)
    }

    func pull(into mirror: String, device: String) throws {
        let manager = FileManager.default
        try manager.createDirectory(atPath: "\(mirror)/devices", withIntermediateDirectories: true)
        let stored = Set(try manager.contentsOfDirectory(atPath: "\(storage)/devices"))
        // Another device's directory gone from the storage goes from the mirror; this device's never does.
        for name in try manager.contentsOfDirectory(atPath: "\(mirror)/devices")
        where name != device && !stored.contains(name) {
            try manager.removeItem(atPath: "\(mirror)/devices/\(name)")
        }
        for name in stored {
            let from = "\(storage)/devices/\(name)", to = "\(mirror)/devices/\(name)"
            try manager.createDirectory(atPath: to, withIntermediateDirectories: true)
            let files = Set(try manager.contentsOfDirectory(atPath: from))
            if name != device {
                for gone in try manager.contentsOfDirectory(atPath: to) where !files.contains(gone) {
                    try manager.removeItem(atPath: "\(to)/\(gone)")
                }
            }
            for file in files {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: "\(from)/\(file)"))
                if (try? Data(contentsOf: URL(fileURLWithPath: "\(to)/\(file)"))) != bytes {
                    try bytes.write(to: URL(fileURLWithPath: "\(to)/\(file)"), options: .atomic)
                    pulled += 1
                }
            }
        }
    }

    func push(_ files: SyncTransferFiles, from mirror: String) throws {
        pushes.append(files)
        if failPush {
            failPush = false
            throw Offline()
        }
        for path in files.written {
            let target = URL(fileURLWithPath: "\(storage)/\(path)")
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
            try Data(contentsOf: URL(fileURLWithPath: "\(mirror)/\(path)")).write(to: target, options: .atomic)
        }
        for path in files.removed { try? FileManager.default.removeItem(atPath: "\(storage)/\(path)") }
    }
}

@Suite struct SyncMirrorTests {
    typealias Setup = SyncTests.Setup

    /// A store's round through `transfer`, with a mirror of its own beside it; checks that the round names only
    /// files of the store's own directory to send.
    static func round(_ store: AnnotationStore, _ transfer: DirectoryTransfer, _ setup: Setup) throws -> SyncReport {
        let pushed = transfer.pushes.count
        let report = try store.sync(mirror: setup.directory.path("mirror-\(store.deviceID)"), through: transfer)
        for files in transfer.pushes.dropFirst(pushed) {
            for path in files.written + files.removed {
                #expect(path.hasPrefix("devices/\(report.deviceID)/"), "pushed another's file: \(path)")
            }
        }
        return report
    }

    /// `store` joins the roster of `member` and is admitted, all through `transfer`.
    static func admit(_ store: AnnotationStore, by member: AnnotationStore, _ transfer: DirectoryTransfer,
                      _ setup: Setup) throws {
        try SyncRosters.join(store, invitedBy: member)
        _ = try round(store, transfer, setup)
        #expect(try round(member, transfer, setup).admitted.map(\.device) == [store.deviceID])
        _ = try round(store, transfer, setup)
    }

    /// A laptop whose first round founded the roster in the storage, and a phone it admitted there.
    static func pair(_ setup: Setup, _ transfer: DirectoryTransfer) throws
        -> (laptop: AnnotationStore, phone: AnnotationStore) {
        let laptop = try setup.store("laptop")
        let phone = try setup.store("phone")
        _ = try round(laptop, transfer, setup)
        try admit(phone, by: laptop, transfer, setup)
        return (laptop, phone)
    }

    @Test func threeStoresConvergeThroughStorageTheyReachOnlyByTransfers() throws {
        let setup = try Setup()
        let transfer = try DirectoryTransfer(storage: setup.directory.path("bucket"))
        let stores = try ["laptop", "phone", "tablet"].map { try setup.store($0) }
        _ = try Self.round(stores[0], transfer, setup)
        for store in stores.dropFirst() { try Self.admit(store, by: stores[0], transfer, setup) }
        for (index, store) in stores.enumerated() { _ = try setup.note(store, "nota \(index)") }
        _ = try stores[0].sync(mirror: setup.directory.path("mirror-\(stores[0].deviceID)"), through: transfer,
                               encrypt: true)
        for _ in 0..<2 { for store in stores { _ = try Self.round(store, transfer, setup) } }
        for store in stores {
            #expect(try Set(store.annotations().compactMap(\.note)) == ["nota 0", "nota 1", "nota 2"])
            #expect(try store.verify().isHealthy)
        }
        // The storage holds each store's files in its own directory only, and no mirror's bookkeeping.
        let directories = try FileManager.default.contentsOfDirectory(atPath: "\(transfer.storage)/devices")
        #expect(Set(directories) == Set(stores.map(\.deviceID)))
        #expect(!FileManager.default.fileExists(atPath: "\(transfer.storage)/\(SyncMirror.unsentName)"))
    }

    @Test func anIdleRoundCopiesAndSendsNothing() throws {
        let setup = try Setup()
        let transfer = try DirectoryTransfer(storage: setup.directory.path("bucket"))
        let (laptop, phone) = try Self.pair(setup, transfer)
        _ = try setup.note(laptop, "una")
        for _ in 0..<2 { for store in [laptop, phone] { _ = try Self.round(store, transfer, setup) } }
        let (pulled, pushes) = (transfer.pulled, transfer.pushes.count)
        for store in [laptop, phone] {
            let report = try Self.round(store, transfer, setup)
            #expect(report.written == nil && report.changesApplied == 0)
        }
        #expect(transfer.pulled == pulled && transfer.pushes.count == pushes)
    }

    @Test func aPushThatFailsIsSentFirstAtTheNextRoundAndNothingIsLost() throws {
        let setup = try Setup()
        let transfer = try DirectoryTransfer(storage: setup.directory.path("bucket"))
        let (laptop, phone) = try Self.pair(setup, transfer)
        _ = try setup.note(laptop, "scrisă offline")
        transfer.failPush = true
        #expect(throws: DirectoryTransfer.Offline.self) { try Self.round(laptop, transfer, setup) }
        let unsent = try #require(transfer.pushes.last)
        #expect(unsent.written.contains { $0.hasSuffix(".jsonl.gz") })
        // The phone sees nothing yet: the segment is in the laptop's mirror only.
        _ = try Self.round(phone, transfer, setup)
        #expect(try phone.annotations().isEmpty)
        // The laptop's next round sends it before anything else, though it has nothing new to write.
        let next = try Self.round(laptop, transfer, setup)
        #expect(next.written == nil)
        #expect(transfer.pushes.suffix(1).first?.written == unsent.written)
        _ = try Self.round(phone, transfer, setup)
        #expect(try phone.annotations().map(\.note) == ["scrisă offline"])
    }

    @Test func aSegmentDamagedInTheStorageIsWrittenAgainAndRemovedThereThoughWholeInTheWritersMirror() throws {
        let setup = try Setup()
        let transfer = try DirectoryTransfer(storage: setup.directory.path("bucket"))
        let (laptop, phone) = try Self.pair(setup, transfer)
        _ = try setup.note(laptop, "una")
        let written = try #require(try Self.round(laptop, transfer, setup).written)
        let stored = "\(transfer.storage)/\(written.path)"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: stored))
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: stored))
        let reading = try Self.round(phone, transfer, setup)
        #expect(reading.damaged.map(\.path) == [written.path])
        let healing = try Self.round(laptop, transfer, setup)
        #expect(healing.republished == [written.path])
        #expect(!FileManager.default.fileExists(atPath: stored))
        let healed = try Self.round(phone, transfer, setup)
        #expect(healed.damaged.isEmpty)
        #expect(try phone.annotations().map(\.note) == ["una"])
    }

    @Test func aPullThatFailsChangesNothing() throws {
        struct Unreachable: SyncTransfer {
            struct Down: Error {}
            func pull(into mirror: String, device: String) throws { throw Down() }
            func push(_ files: SyncTransferFiles, from mirror: String) throws { Issue.record("pushed \(files)") }
        }
        let setup = try Setup()
        let laptop = try setup.store("laptop")
        _ = try setup.note(laptop, "una")
        let head = try laptop.verify()
        #expect(throws: Unreachable.Down.self) {
            try laptop.sync(mirror: setup.directory.path("mirror"), through: Unreachable())
        }
        #expect(try laptop.roster() == nil)
        #expect(try laptop.verify() == head)
    }

    @Test func theListOfWhatIsNotSentKeepsOnlyPathsInADeviceDirectory() throws {
        let setup = try Setup()
        let mirror = try SyncMirror(path: setup.directory.path("mirror"))
        try Data(#"{"written":["../escape"],"removed":[]}"#.utf8).write(to: URL(fileURLWithPath: mirror.unsentPath))
        #expect(throws: MarginaliaError.self) { try mirror.unsent() }
        #expect(SyncMirror.isOwnPath("devices/abc/000000000001-000000000001-0000abcd.jsonl.gz"))
        for path in ["devices/abc/../x", "devices/abc", "other/abc/x", "devices/abc/.hidden", "/devices/abc/x"] {
            #expect(!SyncMirror.isOwnPath(path), "\(path)")
        }
    }
}
