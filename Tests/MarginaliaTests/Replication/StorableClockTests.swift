import Foundation
import Testing
@testable import Marginalia

/// The log keeps a change's clock as one integer (`HLC.packed`), which holds clocks up to
/// `HLC.maxStoredMilliseconds` (October 4892), fewer than the text form can say (up to year 9999). A later clock is
/// refused by every way into the log: stored clamped, its row would disagree with the digest taken over its text, and
/// `verify` would fail on every replica that took it.
@Suite struct StorableClockTests {
    typealias Fixtures = ArchiveFixtures

    /// 5000-01-01T00:00:00.000Z: a clock the text form says and the log cannot hold.
    static let year5000: Int64 = 95_617_584_000_000
    /// The refusal of a change at `year5000`, as `FieldError` words it.
    static let refusal = #"field "hlc": a clock after 4892-10-07T21:52:48.546Z cannot be stored, "#
        + #"not "095617584000000-00000" (5000-01-01T00:00:00.000Z)"#

    /// A store with the fixture's annotations, made on `clock`.
    static func populated(_ directory: TemporaryDirectory, clock: ManualClock) throws
        -> (store: AnnotationStore, ids: [String])
    {
        let store = try Fixtures.store(directory, clock: clock)
        return (store, try Fixtures.populate(store, clock: clock))
    }

    /// An edit of annotation `id`'s note by another device, at clock `hlc`, made (by its wall clock) at `wall`.
    static func edit(_ id: String, changeID: String, hlc: HLC, wall: Int64, note: String) -> Change {
        Change(changeID: changeID, hlc: hlc, device: "dev-far", entityID: id,
               payload: .edit(note: .set(note), color: nil, tags: [:]), wall: wall)
    }

    /// Made at a plausible time, the change would be merged at once; made in the year 5000 too, it would be held in
    /// quarantine, then let out by a release. Either way the merger refuses it, naming it.
    @Test(arguments: [Fixtures.epoch + 20_000, year5000])
    func aChangeClockedAfterTheLatestTheLogHoldsIsRefusedByTheMerger(wall: Int64) throws {
        let directory = try TemporaryDirectory()
        let (store, ids) = try Self.populated(directory, clock: ManualClock(Fixtures.epoch))
        let before = try canonicalDump(store.path)
        let late = Self.edit(ids[0], changeID: "change-of-5000", hlc: HLC(milliseconds: Self.year5000, counter: 0),
                             wall: wall, note: "din viitor")
        #expect {
            try store.merge([late])
        } throws: { error in
            "\(error)" == "change 1 (change-of-5000): " + Self.refusal
        }
        #expect(try store.releaseQuarantinedChanges() == 0)
        #expect(try canonicalDump(store.path) == before)
        #expect(try store.verify().problems == [])
    }

    /// The latest clock the log holds, to the counter, is taken and stored exactly: the store verifies, and an
    /// archive carries it to a replica that verifies too.
    @Test func aChangeAtTheLatestClockTheLogHoldsIsMergedAndVerifies() throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock(Fixtures.epoch)
        let (store, ids) = try Self.populated(directory, clock: clock)
        let latest = HLC(milliseconds: HLC.maxStoredMilliseconds, counter: HLC.maxCounter)
        #expect(latest.description == "092233720368546-99999")
        let edge = Self.edit(ids[0], changeID: "change-at-the-bound", hlc: latest, wall: Fixtures.epoch + 20_000,
                             note: "la margine")
        let report = try store.merge([edge])
        #expect(report.newChanges == 1 && report.quarantined == 0)
        #expect(try store.history(id: ids[0]).last?.hlc == latest)
        #expect(try store.annotation(id: ids[0]).note == "la margine")
        #expect(try store.verify().problems == [])

        let path = directory.path("edge.jsonl.gz")
        try store.exportArchive(toFile: path)
        let replica = try Fixtures.store(directory, "replica.db", clock: clock)
        #expect(try replica.importArchive(path: path).newChanges == 13)
        #expect(try replica.changes(after: nil) == store.changes(after: nil))
        #expect(try replica.verify().problems == [])
    }

    /// A change an earlier version held in quarantine with a clock the log cannot hold is refused by a release,
    /// which lets nothing out; opening the store once it is due leaves it held.
    @Test func aHeldChangeClockedAfterTheLatestTheLogHoldsIsRefusedOnRelease() throws {
        let directory = try TemporaryDirectory()
        let (store, ids) = try Self.populated(directory, clock: ManualClock(Fixtures.epoch))
        let held = Self.edit(ids[0], changeID: "held-of-5000", hlc: HLC(milliseconds: Self.year5000, counter: 0),
                             wall: Self.year5000, note: "din viitor")
        // As a store of an earlier version held it: its clock was never checked against the log's.
        try store.db.execute(
            sql: """
                INSERT INTO quarantine (\(Change.quarantineColumns), source, seen_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: StatementArguments(held.columnValues(fieldsText: try held.fields.jsonText())
                + [.text("merge"), .text("2023-11-14T22:13:20.000Z")]))
        let before = try canonicalDump(store.path)
        #expect {
            try store.releaseQuarantinedChanges()
        } throws: { error in
            "\(error)" == "change held-of-5000, held in quarantine: " + Self.refusal + "; nothing was released"
        }
        #expect(try canonicalDump(store.path) == before)
        #expect(try store.verify().problems == [])
        try store.close()

        let later = try makeStore(directory, wallClock: ManualClock(Self.year5000 + 1).now)
        #expect(try later.quarantinedChanges().map(\.change.changeID) == ["held-of-5000"])
        #expect(try canonicalDump(later.path) == before)
        #expect(try later.verify().problems == [])
    }

    /// An item of another tool's file dated after the latest clock the log holds is refused, naming its line.
    @Test func anImportedItemDatedAfterTheLatestTheLogHoldsIsRefusedNamingItsLine() throws {
        let directory = try TemporaryDirectory()
        let store = try Fixtures.store(directory, clock: ManualClock(Fixtures.epoch))
        let before = try canonicalDump(store.path)
        func item(_ text: String, at location: Int, date: Int64, line: Int) -> ImportItem {
            ImportItem(format: .kindle, kind: .highlight, title: "Luceafarul", text: text,
                       location: ItemLocation(start: location, end: location + 1), date: date, line: line)
        }
        let items = [item("A fost odată", at: 10, date: Fixtures.epoch, line: 1),
                     item("O prea frumoasă fată", at: 40, date: Self.year5000, line: 6)]
        #expect {
            try store.importItems(items, format: .kindle, options: InteropImportOptions())
        } throws: { error in
            "\(error)" == "the item on line 6: " + Self.refusal + ": nothing was imported"
        }
        #expect(try canonicalDump(store.path) == before)
        #expect(try store.verify().problems == [])
    }

    /// This machine's own clock: a write when it reads after the latest clock the log holds is refused, not
    /// stamped with a clamped clock; at that latest millisecond it is made as usual.
    @Test func aWriteWhenThisMachinesClockReadsAfterTheLatestTheLogHoldsIsRefused() throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock(HLC.maxStoredMilliseconds)
        let store = try Fixtures.store(directory, clock: clock)
        let made = try store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.1"))
        #expect(try store.history(id: made.id).map(\.hlc)
            == [HLC(milliseconds: HLC.maxStoredMilliseconds, counter: 0)])
        let before = try canonicalDump(store.path)
        clock.set(Self.year5000)
        #expect {
            try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.2"), note: "din viitor")
        } throws: { error in
            "\(error)" == "this machine's clock reads 5000-01-01T00:00:00.000Z: a change made now would take a "
                + "clock after 4892-10-07T21:52:48.546Z, which the log cannot store; nothing was written"
        }
        #expect(try canonicalDump(store.path) == before)
        #expect(try store.verify().problems == [])
    }

    /// Asked for what changed since a time after the latest clock the log holds (up to the year 9999, as a date
    /// typed may be), the log, the history and an export find nothing: the bound is above every stored clock.
    @Test func queriesSinceATimeAfterTheLatestTheLogHoldsFindNothing() throws {
        let directory = try TemporaryDirectory()
        let (store, _) = try Self.populated(directory, clock: ManualClock(Fixtures.epoch))
        for since in [HLC.maxStoredMilliseconds + 1, Self.year5000, Timestamp.latestMilliseconds] {
            #expect(try store.log(LogFilter(since: since)).isEmpty)
            #expect(try store.diff(since: since).isEmpty)
            let path = directory.path("since-\(since).jsonl.gz")
            try store.exportArchive(toFile: path, filter: ExportFilter(since: since))
            let records = try Fixtures.lines(ofArchive: path).compactMap { line -> String? in
                guard case .object(let object)? = try? JSONParser.parse(line),
                      case .string(let type)? = object["type"] else { return nil }
                return type
            }
            #expect(records == ["header", "trailer"])
        }
        #expect(try store.log(LogFilter(since: HLC.maxStoredMilliseconds)).isEmpty)
        #expect(try store.log(LogFilter(since: Fixtures.epoch)).count == 12)
    }
}
