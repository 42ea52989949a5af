/// A local write made while this machine's wall clock was more than the allowed drift (a day) ahead of the
/// store's newest change, or behind it: the write was made, and the store keeps a note of it (`clock_notes`).
///
/// A clock far ahead stamps every later change ahead too; a clock far behind is usually the sign that an
/// earlier write (here or on another device) was made with a clock far ahead.
public struct ClockWarning: Equatable, Sendable, CustomStringConvertible {
    /// Which way the wall clock was off.
    public enum Direction: String, Sendable {
        /// The wall clock was ahead of the store's newest change.
        case ahead
        /// The wall clock was behind the store's newest change.
        case behind
    }

    /// Which way the wall clock was off.
    public let direction: Direction
    /// This machine's wall clock at the write, in milliseconds since 1970.
    public let wallClock: Int64
    /// The store's newest change before the write.
    public let newestChange: HLC
    /// The change the write made.
    public let changeID: String

    /// The warning in words: how far off the clock was, and which change it stamped.
    public var description: String {
        let gap = StoreConnection.duration(abs(wallClock - newestChange.milliseconds))
        let way = direction == .ahead ? "ahead of" : "behind"
        return "this machine's clock (\(Timestamp.iso8601(milliseconds: wallClock))) is \(gap) \(way) "
            + "the store's newest change (\(newestChange.iso8601)); change \(changeID) was made with it and "
            + "noted in the store — check the system clock"
    }
}

extension StoreConnection {
    /// Notes the write about to be stamped when the wall clock is more than the allowed drift from the store's
    /// newest change; once per transaction. Call it inside the write transaction, before the clock ticks.
    func noteClockIfFarOff(changeID: String) throws {
        guard !(batchState?.clockWarningNoted ?? false) else { return }
        let newest = clock.latest
        let wall = clock.wallMilliseconds
        guard newest != .zero, abs(wall - newest.milliseconds) > clock.maxDrift else { return }
        let warning = ClockWarning(direction: wall > newest.milliseconds ? .ahead : .behind, wallClock: wall,
                                   newestChange: newest, changeID: changeID)
        try db.execute(
            sql: "INSERT INTO clock_notes (change_id, wall_clock, newest_change, direction) VALUES (?, ?, ?, ?)",
            arguments: [changeID, Timestamp.iso8601(milliseconds: wall), newest.description, warning.direction.rawValue])
        if db.isInTransaction { batchState?.clockWarningNoted = true }
        clockWarnings.append(warning)
    }

    /// The notes of local writes made with a wall clock far from the store's newest change, oldest first.
    func clockNotes() throws -> [ClockWarning] {
        try db.fetchAll(
            sql: "SELECT direction, wall_clock, newest_change, change_id FROM clock_notes ORDER BY seq"
        ) { row in
            let newest = try row.string(2)
            guard let direction = ClockWarning.Direction(rawValue: try row.string(0)), let hlc = HLC(newest),
                  let wall = Timestamp.parseISO8601(try row.string(1)) else {
                throw StoreError.invalidChange(reason: "the store holds an unreadable clock note (\(newest))")
            }
            return ClockWarning(direction: direction, wallClock: wall, newestChange: hlc, changeID: try row.string(3))
        }
    }

    /// A duration in words, rounded down to the largest unit that fits: "a day", "2 days", "90 minutes".
    static func duration(_ milliseconds: Int64) -> String {
        for (size, unit) in [(Int64(86_400_000), "day"), (3_600_000, "hour"), (60_000, "minute"), (1000, "second")]
        where milliseconds >= size {
            let count = milliseconds / size
            // Whole days and hours read as such; otherwise the next smaller unit keeps it exact enough.
            if size > 1000, milliseconds % size != 0, count < 2 { continue }
            return count == 1 ? "a\(unit == "hour" ? "n" : "") \(unit)" : "\(count) \(unit)s"
        }
        return "\(milliseconds) ms"
    }
}
