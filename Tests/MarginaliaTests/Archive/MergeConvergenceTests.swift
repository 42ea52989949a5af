import Foundation
import Testing
@testable import Marginalia

/// Merging archives between machines ends in the same state everywhere, with the documented winners
/// (reliability test plan, D.21, D.22, D.24 and D.25). The seeded randomized test is in
/// `RandomizedConvergenceTests`.
@Suite struct MergeConvergenceTests {
    typealias Fixtures = ArchiveFixtures

    /// Two replicas, `a` and `b`, that both hold the populated fixture; b's clock runs 250 ms ahead of a's.
    struct Pair {
        let directory: TemporaryDirectory
        let a: Replica
        let b: Replica
        let ids: [String]

        init() throws {
            directory = try TemporaryDirectory()
            a = try Replica("a", in: directory, clock: ManualClock(Fixtures.epoch))
            b = try Replica("b", in: directory, clock: ManualClock(Fixtures.epoch + 250))
            ids = try Fixtures.populate(a.store, clock: a.clock)
            b.clock.set(a.clock.now() + 250)
            try b.importArchive(try a.export())
            try #require(try a.state() == b.state())
        }

        /// Moves both clocks forward by `milliseconds`.
        func advance(_ milliseconds: Int64) {
            a.clock.advance(milliseconds)
            b.clock.advance(milliseconds)
        }

        /// A→B, then B→A.
        func exchange() throws {
            try b.importArchive(try a.export())
            try a.importArchive(try b.export())
        }
    }

    @Test func aToBThenBToAEndsInTheSameStateWithTheSameWinners() throws {
        let pair = try Pair()
        let (a, b) = (pair.a, pair.b)
        let first = pair.ids[0]
        let span = pair.ids[3]
        pair.advance(1000)
        // Concurrent edits on both ends; b's clock is later, so b wins the fields both set.
        try a.store.editAnnotation(id: first, note: "from a", color: "green", addTags: ["a-tag"])
        try b.store.editAnnotation(id: first, note: "from b", removeTags: ["eminescu"])
        try a.store.setPosition(document: "luceafarul", at: TextPosition(passage: "luceafarul.3", offset: 1))
        try b.store.setPosition(document: "luceafarul", at: TextPosition(passage: "luceafarul.4", offset: 2))
        try b.store.deleteAnnotation(id: span)
        pair.advance(1000)
        let madeOnA = try a.store.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.2"), note: "a")
        let madeOnB = try b.store.createAnnotation(
            .note, at: AnchorRequest(passage: "luceafarul.2", quote: "niciodată"), note: "b")
        // a edits its position again, later than b: a's wins.
        try a.store.setPosition(document: "luceafarul", at: TextPosition(passage: "luceafarul.1", offset: 7))
        try pair.exchange()

        let state = try a.state()
        #expect(try b.state() == state)
        #expect(state.changeIDs.count == 12 + 8)
        let ids = state.annotations.map(\.id)
        #expect(Set(ids).count == ids.count && ids.count == 7)
        let merged = try a.store.annotation(id: first)
        #expect(merged.note == "from b" && merged.color == "green" && merged.tags == ["a-tag", "luceafărul"])
        #expect(try a.store.annotation(id: span).deleted)
        #expect(try a.store.annotation(id: madeOnA.id).note == "a" && a.store.annotation(id: madeOnB.id).note == "b")
        #expect(try a.store.position(document: "luceafarul")?.position
                == TextPosition(passage: "luceafarul.1", offset: 7))
        // And again, any number of times: nothing new.
        for replica in [a, b] {
            #expect(try replica.importArchive(try a.export()).newChanges == 0)
            #expect(try replica.importArchive(try b.export()).newChanges == 0)
        }
        #expect(try a.state() == state && b.state() == state)
        #expect(try a.store.verify().problems == [] && b.store.verify().problems == [])
    }

    // MARK: - Tombstones

    @Test func aDeleteConcurrentWithAnEditStaysDeletedOnBoth() throws {
        let pair = try Pair()
        let id = pair.ids[0]
        pair.advance(1000)
        try pair.b.store.editAnnotation(id: id, note: "edited on b")
        pair.a.clock.advance(500)
        try pair.a.store.deleteAnnotation(id: id)
        try pair.exchange()
        for replica in [pair.a, pair.b] {
            let merged = try replica.store.annotation(id: id)
            #expect(merged.deleted && merged.note == "edited on b", "\(replica.name)")
        }
        #expect(try pair.a.state() == pair.b.state())
    }

    @Test func anEditMadeAfterTheDeleteDoesNotResurrect() throws {
        let pair = try Pair()
        let id = pair.ids[0]
        pair.advance(1000)
        try pair.a.store.deleteAnnotation(id: id)
        // b has not seen the delete and edits later.
        pair.b.clock.advance(60_000)
        try pair.b.store.editAnnotation(id: id, note: "later, on b", addTags: ["x"])
        try pair.exchange()
        for replica in [pair.a, pair.b] {
            let merged = try replica.store.annotation(id: id)
            #expect(merged.deleted && merged.note == "later, on b" && merged.tags == ["eminescu", "luceafărul", "x"])
            #expect(try replica.store.annotations().map(\.id).contains(id) == false)
        }
        #expect(try pair.a.state() == pair.b.state())
    }

    @Test func anOldBackupDoesNotResurrect() throws {
        let pair = try Pair()
        let id = pair.ids[3]
        let old = try pair.a.export()
        pair.advance(1000)
        try pair.a.store.deleteAnnotation(id: id)
        let report = try pair.a.importArchive(old)
        #expect(report.newChanges == 0 && report.duplicates == 12)
        #expect(try pair.a.store.annotation(id: id).deleted)
        // On a machine that has seen neither: old then new, and new then old, end deleted.
        let current = try pair.a.export()
        let c = try Replica("c", in: pair.directory, clock: ManualClock(Fixtures.epoch + 3_600_000))
        let d = try Replica("d", in: pair.directory, clock: ManualClock(Fixtures.epoch + 3_600_000))
        try c.importArchive(old)
        #expect(try c.store.annotation(id: id).deleted == false)
        try c.importArchive(current)
        try d.importArchive(current)
        try d.importArchive(old)
        try pair.b.importArchive(current)
        try pair.b.importArchive(old)
        for replica in [c, d, pair.b] {
            #expect(try replica.store.annotation(id: id).deleted, "\(replica.name)")
            #expect(try replica.state() == pair.a.state(), "\(replica.name)")
        }
    }

    @Test func anExplicitUndeleteNewerThanTheDeleteWinsAndPropagates() throws {
        let pair = try Pair()
        let id = pair.ids[4]  // deleted by `populate`
        pair.advance(1000)
        try pair.b.store.undeleteAnnotation(id: id)
        try pair.exchange()
        for replica in [pair.a, pair.b] {
            #expect(try replica.store.annotation(id: id).deleted == false)
            #expect(try replica.store.history(id: id).map(\.operation) == [.create, .delete, .undelete])
        }
        // A delete newer than that undelete wins again.
        pair.advance(1000)
        try pair.a.store.deleteAnnotation(id: id)
        try pair.exchange()
        #expect(try pair.b.store.annotation(id: id).deleted)
        #expect(try pair.a.state() == pair.b.state())
    }

    // MARK: - Clocks

    @Test func identicalClocksResolveByDeviceIDOnEveryReplica() throws {
        let directory = try TemporaryDirectory()
        let time = ManualClock(Fixtures.epoch)
        let a = try Replica("a", in: directory, clock: time)
        let b = try Replica("b", in: directory, clock: time)
        let made = try a.store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.4"))
        try b.importArchive(try a.export())
        // Same millisecond, same latest clock in both logs: both edits get the same HLC.
        let editA = try a.store.editAnnotation(id: made.id, note: "a", color: "red")
        let editB = try b.store.editAnnotation(id: made.id, note: "b", color: "blue")
        #expect(editA.updatedAt == editB.updatedAt)
        let positionA = try a.store.setPosition(document: "scrisoarea-i",
                                                at: TextPosition(passage: "scrisoarea-i.1", offset: 1))
        let positionB = try b.store.setPosition(document: "scrisoarea-i",
                                                at: TextPosition(passage: "scrisoarea-i.2", offset: 2))
        #expect(positionA.updatedAt == positionB.updatedAt)
        let winner = a.store.deviceID > b.store.deviceID
            ? (note: "a", passage: "scrisoarea-i.1") : (note: "b", passage: "scrisoarea-i.2")
        let files = [try a.export(), try b.export()]
        let c = try Replica("c", in: directory, clock: time)
        let d = try Replica("d", in: directory, clock: time)
        for file in files { try c.importArchive(file) }
        for file in files.reversed() { try d.importArchive(file) }
        try a.importArchive(files[1])
        try b.importArchive(files[0])
        let state = try a.state()
        for replica in [a, b, c, d] {
            #expect(try replica.store.annotation(id: made.id).note == winner.note, "\(replica.name)")
            #expect(try replica.store.position(document: "scrisoarea-i")?.position.passage == winner.passage)
            #expect(try replica.state() == state, "\(replica.name)")
        }
    }

    @Test func canonicallyEquivalentSpellingsOfATagConvergeByteForByte() throws {
        let pair = try Pair()
        let id = pair.ids[3]
        pair.advance(1000)
        // "été" typed precomposed on a and decomposed on b: one tag, which must be stored alike everywhere.
        try pair.a.store.editAnnotation(id: id, addTags: ["\u{E9}t\u{E9}"])
        try pair.b.store.editAnnotation(id: id, addTags: ["e\u{301}te\u{301}"])
        try pair.exchange()
        let state = try pair.a.state()
        #expect(try pair.b.state().tables == state.tables)
        for replica in [pair.a, pair.b] {
            #expect(try replica.store.annotation(id: id).tags.map { Array($0.utf8) } == [Array("\u{E9}t\u{E9}".utf8)])
            #expect(try replica.store.annotations(matching: AnnotationFilter(tag: "\u{E9}t\u{E9}")).map(\.id) == [id])
        }
    }

    @Test func aStoreCopiedToASecondMachineIsDetectedAndStillConverges() throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock(Fixtures.epoch)
        let ids = try Fixtures.populate(try Replica("a", in: directory, clock: clock).store, clock: clock)
        try FileManager.default.copyItem(atPath: directory.path("a.db"), toPath: directory.path("copy.db"))
        let a = try Replica("a", in: directory, clock: clock)
        let copy = try Replica("copy", in: directory, clock: clock)
        let shared = a.store.deviceID
        #expect(copy.store.deviceID == shared)
        // Both machines write under the same device id, at the same clock.
        clock.advance(1000)
        let onA = try a.store.editAnnotation(id: ids[0], note: "on a")
        let onCopy = try copy.store.editAnnotation(id: ids[0], note: "on the copy")
        #expect(onA.updatedAt == onCopy.updatedAt)

        let intoCopy = try copy.importArchive(try a.export())
        let renewed = try #require(intoCopy.renewedDeviceID)
        #expect(renewed != shared && copy.store.deviceID == renewed)
        try copy.reopen()
        #expect(copy.store.deviceID == renewed)
        clock.advance(1000)
        #expect(try copy.store.deleteAnnotation(id: ids[3]).deleted)
        #expect(try copy.store.history(id: ids[3]).last?.device == renewed)

        // a then sees the copy's edit, made under a's own id: it renews too.
        let intoA = try a.importArchive(try copy.export())
        let renewedA = try #require(intoA.renewedDeviceID)
        #expect(![shared, renewed].contains(renewedA) && a.store.deviceID == renewedA)
        #expect(try copy.importArchive(try a.export()).renewedDeviceID == nil)
        #expect(try a.state() == copy.state())
        // Same clock, same device: the greater change id wins, on both.
        let edits = try a.store.history(id: ids[0]).filter { $0.operation == .edit && $0.hlc == onA.updatedAt }
        #expect(edits.count == 2 && edits.allSatisfy { $0.device == shared })
        let winner = try #require(edits.max { $0.changeID < $1.changeID }?.fields.note)
        #expect(try a.store.annotation(id: ids[0]).note == winner)
        #expect(try copy.store.annotation(id: ids[0]).note == winner)
    }

    @Test func aFarFutureClockOnOneDeviceIsQuarantinedNotFollowed() throws {
        let directory = try TemporaryDirectory()
        let a = try Replica("a", in: directory, clock: ManualClock(Fixtures.epoch))
        let ids = try Fixtures.populate(a.store, clock: a.clock)
        let year: Int64 = 365 * 86_400_000
        let b = try Replica("b", in: directory, clock: ManualClock(Fixtures.epoch + year))
        let made = try b.store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.1"))
        let file = try b.export()
        let changes = try a.store.changeCount()
        let report = try a.importArchive(file)
        #expect(report.quarantined == 1 && report.newChanges == 0)
        #expect(try a.store.changeCount() == changes)
        let held = try a.store.quarantinedChanges()
        #expect(held.map(\.change.changeID) == [try #require(try b.store.log().first?.changeID)])
        #expect(held.first?.source == file)
        // a's own clock does not follow the held change.
        let local = try a.store.editAnnotation(id: ids[0], note: "here")
        #expect(local.updatedAt < made.createdAt)
        // Allowed by a wider cap, it is merged, and a's clock never goes back behind it.
        // (The held change is merged from the quarantine first; the file's copy is then already here.)
        let wider = try a.importArchive(file, limits: ArchiveLimits(maxClockDrift: 2 * year))
        #expect(wider.releasedFromQuarantine == 1 && wider.duplicates == 1)
        #expect(try a.store.annotation(id: made.id).createdAt == made.createdAt)
        #expect(try a.store.quarantinedChanges().isEmpty)
        let next = try a.store.editAnnotation(id: made.id, note: "after")
        #expect(next.updatedAt > made.createdAt)
    }
}
