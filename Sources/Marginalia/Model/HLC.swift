/// A hybrid logical clock timestamp: wall-clock milliseconds and a counter.
///
/// Timestamps are ordered by (milliseconds, counter); changes made at the same timestamp on two devices are
/// ordered by device id (see `ClockStamp`). The text form is fixed-width, so text order is clock order:
/// `001795954481123-00000`.
public struct HLC: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public let milliseconds: Int64
    /// Orders timestamps within one millisecond.
    public let counter: Int32

    /// The largest counter; the next tick moves to the next millisecond instead of wrapping.
    package static let maxCounter: Int32 = 99_999
    /// The largest representable milliseconds (15 decimal digits, year 33658).
    package static let maxMilliseconds: Int64 = 999_999_999_999_999

    /// The earliest clock: before every change.
    package static let zero = HLC(milliseconds: 0, counter: 0)

    /// A clock at `milliseconds` since 1970 with `counter` for changes in the same millisecond.
    public init(milliseconds: Int64, counter: Int32) {
        self.milliseconds = milliseconds
        self.counter = counter
    }

    /// Parses the text form `MMMMMMMMMMMMMMM-CCCCC` (15 and 5 decimal digits); nil for anything else.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 21, bytes[15] == UInt8(ascii: "-") else { return nil }
        guard let milliseconds = HLC.decimal(bytes[0..<15]), let counter = HLC.decimal(bytes[16..<21]) else {
            return nil
        }
        self.milliseconds = milliseconds
        self.counter = Int32(counter)
    }

    /// The fixed-width text form, e.g. `001795954481123-00000`: text order is clock order.
    public var description: String {
        // Digit by digit into the 21 bytes of the fixed-width form: made for every change and every saved
        // annotation, so it skips the intermediate strings of padding.
        String(unsafeUninitializedCapacity: 21) { buffer in
            var value = UInt64(clamping: milliseconds)
            for index in stride(from: 14, through: 0, by: -1) {
                buffer[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
            buffer[15] = UInt8(ascii: "-")
            var count = UInt32(clamping: counter)
            for index in stride(from: 20, through: 16, by: -1) {
                buffer[index] = UInt8(ascii: "0") + UInt8(count % 10)
                count /= 10
            }
            return 21
        }
    }

    /// The latest milliseconds the log can hold (4892-10-07T21:52:48.546Z): `packed` must fit in a signed 64-bit
    /// integer.
    package static let maxStoredMilliseconds: Int64 = (Int64.max - Int64(maxCounter)) / 100_000

    /// The latest clock the log can hold, `maxStoredMilliseconds` with the largest counter.
    package static let latestStored = HLC(milliseconds: maxStoredMilliseconds, counter: maxCounter)

    /// Whether the log can hold this clock: its milliseconds are at most `maxStoredMilliseconds`. The text form says
    /// clocks up to year 9999, which a change from another store, an archive or this machine's clock may carry.
    package var isStorable: Bool { milliseconds <= HLC.maxStoredMilliseconds }

    /// Refuses a clock the log cannot hold (`isStorable`): every way a change comes into the log checks it, so that
    /// none is stored with another clock than the one its digest was taken over.
    /// - Throws: `FieldError` for `field`, naming the latest clock the log holds.
    package func checkStorable(field: String = "hlc") throws(FieldError) {
        guard !isStorable else { return }
        throw FieldError(
            field: field,
            reason: "a clock after \(Timestamp.iso8601(milliseconds: HLC.maxStoredMilliseconds)) cannot be stored, "
                + "not \"\(self)\" (\(iso8601))")
    }

    /// The clock as one integer, milliseconds × 100,000 + counter, as the log's `hlc` column and the current
    /// tables keep it: integer order is clock order, and the decimal digits read as the text form without its dash.
    ///
    /// Only for a clock the log can hold (`isStorable`): every way into the log refuses a later one first
    /// (`Change.check`, the archive's change records, an interop import's clocks, a quarantine release,
    /// `HybridLogicalClock.tick`), since one stored clamped would disagree with the digest taken over its text. A
    /// query's bound that may be later uses `packedBound`.
    package var packed: Int64 {
        precondition(isStorable, "a clock after the latest the log holds was not refused: \(self)")
        return milliseconds * 100_000 + Int64(counter)
    }

    /// The clock as a bound on the log's packed clocks, for a query (`hlc >= ?`): `packed`, and for a clock the log
    /// cannot hold `Int64.max`, above every packed clock (the latest, `latestStored.packed`, is below it).
    package var packedBound: Int64 { isStorable ? packed : .max }

    /// The clock `packed` stands for; nil for a negative value or a counter out of range.
    package init?(packed: Int64) {
        guard packed >= 0 else { return nil }
        self.init(milliseconds: packed / 100_000, counter: Int32(packed % 100_000))
    }

    /// Whether `lhs` is earlier: by milliseconds, then by counter.
    public static func < (lhs: HLC, rhs: HLC) -> Bool {
        (lhs.milliseconds, lhs.counter) < (rhs.milliseconds, rhs.counter)
    }

    /// The wall-clock time, as an ISO 8601 timestamp in UTC with milliseconds.
    package var iso8601: String { Timestamp.iso8601(milliseconds: milliseconds) }

    private static func decimal(_ digits: ArraySlice<UInt8>) -> Int64? {
        var value: Int64 = 0
        for digit in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            value = value * 10 + Int64(digit - UInt8(ascii: "0"))
        }
        return value
    }
}

extension HLC: Codable {
    /// Decodes the fixed-width text form, e.g. `"001795954481123-00000"`.
    ///
    /// - Throws: `DecodingError.dataCorrupted` for any other text.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let hlc = HLC(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "not a clock like 001795954481123-00000: \(text)")
        }
        self = hlc
    }

    /// Encodes the fixed-width text form, as the log stores it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// The clock of one change: its timestamp, its device and its change id, the total order that decides
/// which of two changes to the same field wins (last writer wins).
///
/// The change id only breaks ties between changes a single device made at one timestamp, which happens
/// only when a store was copied to a second machine; it keeps the winner the same on every replica.
package struct ClockStamp: Comparable, Hashable, Sendable {
    /// The change's clock.
    package let hlc: HLC
    /// The device that made the change.
    package let device: String
    /// The change's id.
    package let changeID: String

    /// The stamp of a change with the given clock, device and id.
    package init(hlc: HLC, device: String, changeID: String) {
        self.hlc = hlc
        self.device = device
        self.changeID = changeID
    }

    /// Whether `lhs` is earlier: by clock, then device, then change id.
    package static func < (lhs: ClockStamp, rhs: ClockStamp) -> Bool {
        if lhs.hlc != rhs.hlc { return lhs.hlc < rhs.hlc }
        if lhs.device != rhs.device { return lhs.device < rhs.device }
        return lhs.changeID < rhs.changeID
    }
}

/// The local hybrid logical clock of one store.
///
/// It never goes backwards: each timestamp it issues is greater than every timestamp it has issued or
/// observed (from the log, or from another device's changes), even when the wall clock steps back.
@usableFromInline
package struct HybridLogicalClock: Sendable {
    /// How far ahead of the local wall clock a remote timestamp may be before its change is held in quarantine,
    /// and how far a local write's wall clock may be from the store's newest change before it is noted (one day).
    @usableFromInline
    package static let defaultMaxDrift: Int64 = 24 * 60 * 60 * 1000

    /// The latest timestamp issued or observed.
    package private(set) var latest: HLC
    /// How far (milliseconds) a timestamp may be from the wall clock before it counts as drifting.
    package let maxDrift: Int64
    private let wallClock: @Sendable () -> Int64

    /// - Parameters:
    ///   - latest: the latest timestamp in the store's log.
    ///   - wallClock: milliseconds since 1970; injectable so that tests can step the clock.
    package init(latest: HLC = .zero, maxDrift: Int64 = HybridLogicalClock.defaultMaxDrift,
                wallClock: @escaping @Sendable () -> Int64 = Timestamp.nowMilliseconds) {
        self.latest = latest
        self.maxDrift = maxDrift
        self.wallClock = wallClock
    }

    /// The current wall-clock milliseconds.
    package var wallMilliseconds: Int64 { wallClock() }

    /// The wall clock itself, for code that must judge timestamps against the same clock.
    package var wallClockFunction: @Sendable () -> Int64 { wallClock }

    /// Issues a new timestamp, greater than every one issued or observed so far.
    /// - Throws: `StoreError.clockBeyondLog` when that timestamp would be after the latest the log holds
    ///   (`HLC.latestStored`): the wall clock reads after it, or the clock has reached it. The clock stays as it was.
    package mutating func tick() throws(StoreError) -> HLC {
        let wall = wallClock()
        let next: HLC
        if wall > latest.milliseconds {
            next = HLC(milliseconds: wall, counter: 0)
        } else if latest.counter < HLC.maxCounter {
            next = HLC(milliseconds: latest.milliseconds, counter: latest.counter + 1)
        } else {
            // The counter is exhausted within this millisecond: borrow the next millisecond, never wrap.
            next = HLC(milliseconds: latest.milliseconds + 1, counter: 0)
        }
        guard next.isStorable else { throw StoreError.clockBeyondLog(wallClock: wall) }
        latest = next
        return next
    }

    /// Advances the clock past a timestamp seen in the log or in another device's change.
    package mutating func observe(_ timestamp: HLC) {
        if timestamp > latest { latest = timestamp }
    }

    /// Whether a remote timestamp is implausibly far ahead of the local wall clock.
    package func isTooFarInFuture(_ timestamp: HLC) -> Bool {
        timestamp.milliseconds > wallClock() + maxDrift
    }
}
