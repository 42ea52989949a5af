import Foundation
import Testing
@testable import Marginalia
import MarginaliaTestSupport

/// The merge contract, run against every way changes come in: handed to `merge` directly, in an archive, through
/// a sync folder, and through storage the library reaches only by a `SyncTransfer` (a bucket's or a server's, as
/// rclone moves it; here a directory). Whatever carries them, replicas that exchanged everything hold the same
/// state byte for byte whatever the order (convergence, commutativity), a second delivery changes nothing
/// (idempotence), a deletion survives the stale delivery of what came before it (tombstones), and a change dated
/// more than a day ahead of the receiving store's clock is held, not applied (quarantine).
///
/// Seeded: a failure names its seed, and `MARGINALIA_TEST_SEED=<seed> swift test --filter MergeContract` replays
/// its operations and orders.
@Suite struct MergeContractTests {
    /// One way changes go from one store to another.
    enum Transport: String, CaseIterable, CustomStringConvertible {
        case merge, archive, syncFolder, transfer

        var description: String { rawValue }
    }

    /// Replicas that exchange changes by one transport (a sync folder they all belong to, for `syncFolder`; storage
    /// whose roster they all belong to, each through a mirror of its own, for `transfer`).
    final class Exchange {
        let transport: Transport
        let directory: TemporaryDirectory
        let replicas: [Replica]
        var folder: String { directory.path("Sync") }
        /// The storage, for `transfer`.
        private var storage: DirectoryTransfer?

        init(_ transport: Transport, names: [String]) throws {
            self.transport = transport
            let directory = try TemporaryDirectory()
            self.directory = directory
            replicas = try names.map {
                try Replica($0, in: directory, clock: ManualClock(ArchiveFixtures.epoch))
            }
            if transport == .syncFolder {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try SyncRosters.oneRoster(replicas.map(\.store), folder: folder)
            }
            if transport == .transfer {
                storage = try DirectoryTransfer(storage: directory.path("bucket"))
                // The first founds the roster in the storage; each other joins and is admitted there.
                try round(replicas[0])
                for replica in replicas.dropFirst() {
                    try SyncRosters.join(replica.store, invitedBy: replicas[0].store)
                    try round(replica)
                    try round(replicas[0])
                    try round(replica)
                }
            }
        }

        /// One sync round of `replica` through the storage, with a mirror of its own.
        func round(_ replica: Replica) throws {
            guard let storage else { return }
            _ = try replica.store.sync(mirror: directory.path("mirror-\(replica.name)"), through: storage)
        }

        /// Delivers everything `from` holds to `to`.
        func deliver(_ from: Replica, to: Replica) throws {
            switch transport {
            case .merge:
                try to.store.merge(try from.store.changes(after: nil))
            case .archive:
                try to.importArchive(try from.export())
            case .syncFolder:
                _ = try from.store.sync(folder: folder)
                _ = try to.store.sync(folder: folder)
            case .transfer:
                try round(from)
                try round(to)
            }
        }

        /// Every replica delivers to every other, twice over in `order`: each then holds what any held.
        func allToAll(_ order: [(Int, Int)]) throws {
            for _ in 0..<2 {
                for (from, to) in order { try deliver(replicas[from], to: replicas[to]) }
            }
        }

        /// The ordered pairs of replicas, shuffled.
        func pairs(using generator: inout SeededGenerator) -> [(Int, Int)] {
            let indices = replicas.indices
            return indices.flatMap { from in indices.filter { $0 != from }.map { (from, $0) } }
                .shuffled(using: &generator)
        }
    }

    static let passages = ArchiveFixtures.source.documents.flatMap { $0.passages.map(\.id) }

    /// A few random writes on `replica`: new annotations, and edits, deletions and undeletions of any it holds.
    static func write(_ replica: Replica, count: Int, using generator: inout SeededGenerator) throws {
        for step in 0..<count {
            replica.clock.advance(Int64.random(in: 1...2_000, using: &generator))
            let known = try replica.store.annotations(matching: AnnotationFilter(includeDeleted: true))
            let choice = known.isEmpty ? 0 : Int.random(in: 0..<4, using: &generator)
            do {
                switch choice {
                case 0:
                    let passage = passages.randomElement(using: &generator)!
                    try replica.store.createAnnotation(.note, at: AnchorRequest(passage: passage),
                                                       note: "\(replica.name) \(step)")
                case 1:
                    let target = known.randomElement(using: &generator)!
                    try replica.store.editAnnotation(id: target.id, note: "\(replica.name) edit \(step)",
                                                     addTags: ["t\(Int.random(in: 0..<3, using: &generator))"])
                case 2:
                    try replica.store.deleteAnnotation(id: known.randomElement(using: &generator)!.id)
                default:
                    try replica.store.undeleteAnnotation(id: known.randomElement(using: &generator)!.id)
                }
            } catch let error as MarginaliaError where error.category == .invalidArgument {
                // Deleting what is deleted, or undeleting what is not: nothing to write.
            }
        }
    }

    /// Runs `body` with a seeded generator, naming the seed on failure.
    static func seeded(_ transport: Transport, _ body: (inout SeededGenerator) throws -> Void) {
        for seed in TestSeed.seeds(count: 1) {
            print("MergeContractTests \(transport): seed \(seed) (replay with MARGINALIA_TEST_SEED=\(seed))")
            var generator = SeededGenerator(seed: seed)
            do {
                try body(&generator)
            } catch {
                Issue.record(error, "\(transport), seed \(seed) (replay with MARGINALIA_TEST_SEED=\(seed))")
            }
        }
    }

    @Test(arguments: Transport.allCases)
    func replicasConvergeWhateverTheOrderAndASecondDeliveryChangesNothing(_ transport: Transport) {
        Self.seeded(transport) { generator in
            let exchange = try Exchange(transport, names: ["phone", "laptop", "tablet"])
            for replica in exchange.replicas { try Self.write(replica, count: 8, using: &generator) }
            // Some of it travels before more is written, in a random order.
            for (from, to) in exchange.pairs(using: &generator).prefix(3) {
                try exchange.deliver(exchange.replicas[from], to: exchange.replicas[to])
            }
            for replica in exchange.replicas { try Self.write(replica, count: 8, using: &generator) }
            // What each made itself, all of it in its own log now: what every replica must hold in the end.
            let made = try exchange.replicas.reduce(into: Set<String>()) { made, replica in
                let own = replica.store.deviceID
                made.formUnion(try replica.store.log().filter { $0.device == own }.map(\.changeID))
            }
            try exchange.allToAll(exchange.pairs(using: &generator))
            let state = try exchange.replicas[0].state()
            // Each replica's first write is a new annotation, so there are at least three.
            #expect(made.count >= 3 && state.changeIDs == made, "\(transport): not every change made arrived")
            for replica in exchange.replicas.dropFirst() {
                #expect(try replica.state() == state, "\(transport): \(replica.name) differs from phone")
            }
            // Delivered again, in another order: nothing changes.
            let counts = try exchange.replicas.map { try $0.store.changeCount() }
            try exchange.allToAll(exchange.pairs(using: &generator))
            #expect(try exchange.replicas.map { try $0.store.changeCount() } == counts, "\(transport)")
            for replica in exchange.replicas {
                #expect(try replica.state() == state, "\(transport): \(replica.name) changed on a second delivery")
            }
        }
    }

    @Test(arguments: Transport.allCases)
    func aDeletionSurvivesTheStaleDeliveryOfWhatCameBeforeIt(_ transport: Transport) throws {
        let exchange = try Exchange(transport, names: ["phone", "laptop"])
        let (phone, laptop) = (exchange.replicas[0], exchange.replicas[1])
        phone.clock.advance(1_000)
        let note = try phone.store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.1"), note: "dor")
        // What the phone held before the deletion, kept to be delivered again later.
        let stale = try phone.store.changes(after: nil)
        let staleArchive = try phone.export()
        try exchange.deliver(phone, to: laptop)
        phone.clock.advance(1_000)
        try phone.store.deleteAnnotation(id: note.id)
        try exchange.deliver(phone, to: laptop)
        #expect(try laptop.store.annotation(id: note.id).deleted, "\(transport)")
        switch transport {
        case .merge: try laptop.store.merge(stale)
        case .archive: try laptop.importArchive(staleArchive)
        case .syncFolder, .transfer: try exchange.deliver(phone, to: laptop)
        }
        #expect(try laptop.store.annotation(id: note.id).deleted, "\(transport): the stale create undid the deletion")
        #expect(try laptop.state() == phone.state(), "\(transport)")
    }

    @Test(arguments: Transport.allCases)
    func aChangeFromADayAheadIsHeldNotApplied(_ transport: Transport) throws {
        let exchange = try Exchange(transport, names: ["laptop", "phone"])
        let (ahead, laptop) = (exchange.replicas[1], exchange.replicas[0])
        // The phone's clock runs three days ahead of the laptop's.
        ahead.clock.advance(3 * 86_400_000)
        let made = try ahead.store.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.2"))
        try exchange.deliver(ahead, to: laptop)
        #expect(try laptop.store.quarantinedChanges().map(\.change.entityID) == [made.id], "\(transport)")
        #expect(try laptop.store.annotations(matching: AnnotationFilter(includeDeleted: true)).isEmpty,
                "\(transport): a change from the future was applied")
        // Its time come, it is merged like any other.
        laptop.clock.advance(3 * 86_400_000)
        #expect(try laptop.store.releaseQuarantinedChanges() == 1, "\(transport)")
        #expect(try laptop.store.annotation(id: made.id) == made, "\(transport)")
    }
}
