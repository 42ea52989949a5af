import Testing
@testable import Marginalia

@Suite struct ClockTests {
    @Test func textFormIsFixedWidthAndSortsLikeTheClock() throws {
        let a = HLC(milliseconds: 1_795_954_481_123, counter: 7)
        #expect(a.description == "001795954481123-00007")
        #expect(HLC(a.description) == a)
        #expect(HLC("1795954481123-7") == nil)
        #expect(HLC("00179595448112x-00007") == nil)
        let b = HLC(milliseconds: 1_795_954_481_123, counter: 12)
        let c = HLC(milliseconds: 1_795_954_481_124, counter: 0)
        #expect(a < b && b < c)
        #expect(a.description < b.description && b.description < c.description)
    }

    @Test func tickNeverGoesBackwardsWhenTheWallClockDoes() throws {
        let wall = ManualClock(1_000)
        var clock = HybridLogicalClock(wallClock: wall.now)
        let first = try clock.tick()
        #expect(first == HLC(milliseconds: 1_000, counter: 0))
        #expect(try clock.tick() == HLC(milliseconds: 1_000, counter: 1))
        wall.set(500)  // the wall clock steps back
        #expect(try clock.tick() == HLC(milliseconds: 1_000, counter: 2))
        wall.set(2_000)
        #expect(try clock.tick() == HLC(milliseconds: 2_000, counter: 0))
    }

    @Test func observingAdvancesTheClockPastRemoteTimestamps() throws {
        let wall = ManualClock(1_000)
        var clock = HybridLogicalClock(wallClock: wall.now)
        clock.observe(HLC(milliseconds: 5_000, counter: 3))
        #expect(try clock.tick() == HLC(milliseconds: 5_000, counter: 4))
    }

    @Test func counterOverflowBorrowsTheNextMillisecond() throws {
        let wall = ManualClock(1_000)
        var clock = HybridLogicalClock(latest: HLC(milliseconds: 1_000, counter: HLC.maxCounter), wallClock: wall.now)
        #expect(try clock.tick() == HLC(milliseconds: 1_001, counter: 0))
    }

    /// The clock issues no timestamp the log cannot hold, whether the wall clock reads after the latest one or the
    /// counter would borrow a millisecond past it, and stays where it was.
    @Test func tickRefusesATimestampAfterTheLatestTheLogHolds() throws {
        let wall = ManualClock(HLC.maxStoredMilliseconds)
        var clock = HybridLogicalClock(latest: HLC(milliseconds: HLC.maxStoredMilliseconds, counter: 99_998),
                                       wallClock: wall.now)
        #expect(try clock.tick() == HLC.latestStored)
        #expect(throws: StoreError.clockBeyondLog(wallClock: HLC.maxStoredMilliseconds)) { try clock.tick() }
        #expect(clock.latest == HLC.latestStored)
        var fresh = HybridLogicalClock(wallClock: wall.now)
        wall.set(HLC.maxStoredMilliseconds + 1)
        #expect(throws: StoreError.clockBeyondLog(wallClock: HLC.maxStoredMilliseconds + 1)) { try fresh.tick() }
        #expect(fresh.latest == .zero)
    }

    /// The latest clock the log holds packs exactly into a signed 64-bit integer, and reads back; a later clock
    /// bounds a query above every packed clock.
    @Test func theLatestStorableClockPacksExactly() {
        #expect(HLC.latestStored.packed == 9_223_372_036_854_699_999)
        #expect(HLC(packed: HLC.latestStored.packed) == HLC.latestStored)
        #expect(HLC.latestStored.isStorable && HLC.latestStored.packedBound == HLC.latestStored.packed)
        let later = HLC(milliseconds: HLC.maxStoredMilliseconds + 1, counter: 0)
        #expect(!later.isStorable && later.packedBound == .max)
    }

    @Test func farFutureTimestampsAreRecognised() {
        let wall = ManualClock(1_000_000)
        let clock = HybridLogicalClock(maxDrift: 60_000, wallClock: wall.now)
        #expect(!clock.isTooFarInFuture(HLC(milliseconds: 1_060_000, counter: 0)))
        #expect(clock.isTooFarInFuture(HLC(milliseconds: 1_060_001, counter: 0)))
    }

    @Test func stampsOrderByClockThenDeviceThenChange() {
        let hlc = HLC(milliseconds: 1, counter: 0)
        #expect(ClockStamp(hlc: hlc, device: "a", changeID: "z") < ClockStamp(hlc: hlc, device: "b", changeID: "a"))
        #expect(ClockStamp(hlc: hlc, device: "a", changeID: "a") < ClockStamp(hlc: hlc, device: "a", changeID: "b"))
        let stamp = ClockStamp(hlc: hlc, device: "dev-1", changeID: "c-1")
        #expect(ClockStamp(text: stamp.text) == stamp)
    }

    @Test func iso8601RoundTrip() {
        #expect(Timestamp.iso8601(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.iso8601(milliseconds: 1_795_954_481_123) == "2026-11-29T12:14:41.123Z")
        #expect(Timestamp.iso8601(milliseconds: 951_782_400_000) == "2000-02-29T00:00:00.000Z")
        #expect(Timestamp.parseISO8601("2026-11-29T12:14:41.123Z") == 1_795_954_481_123)
        #expect(Timestamp.parseISO8601("2026-11-29") == 1_795_910_400_000)
        #expect(Timestamp.parseISO8601("2026-11-29T14:14:41.123+02:00") == 1_795_954_481_123)
        #expect(Timestamp.parseISO8601("2026-11-29T12:14") == 1_795_954_440_000)
        #expect(Timestamp.parseISO8601("2026-02-30") == nil)
        #expect(Timestamp.parseISO8601("2026-11-29T25:00") == nil)
        #expect(Timestamp.parseISO8601("yesterday") == nil)
        #expect(Timestamp.parseISO8601("2026-11-29T12:14:41.1234567Z") == 1_795_954_481_123)
    }
}
