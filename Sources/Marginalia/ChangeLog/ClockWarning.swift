/// A local write made while this machine's wall clock was more than the allowed drift (a day) behind the time of
/// the newest change made on this machine before it: the write was made, and the store keeps a note of it
/// (`clock_notes`), once for each such episode.
///
/// Time passing is not a wrong clock: a write after a break of any length is ahead of every earlier one, and is
/// never noted. A clock behind what this machine itself recorded earlier is evidence that one of the two readings
/// was wrong (set back now, or ahead then). Changes received from other devices are judged by their own wall time
/// when they arrive (held in quarantine when far ahead), never by this.
public struct ClockWarning: Equatable, Sendable, CustomStringConvertible {
    /// Which way the wall clock was off.
    public enum Direction: String, Sendable {
        /// The wall clock was ahead of the store's newest change (noted by stores of earlier versions only).
        case ahead
        /// The wall clock was behind the newest change made on this machine.
        case behind
    }

    /// Which way the wall clock was off.
    public let direction: Direction
    /// This machine's wall clock at the write, in milliseconds since 1970.
    public let wallClock: Int64
    /// The evidence: the newest change made on this machine before the write, by its wall time (for a note an
    /// earlier version made, the store's newest change by its clock).
    public let newestChange: HLC
    /// The change the write made.
    public let changeID: String

    /// The warning in words: how far off the clock was, against what, and which change it stamped.
    public var description: String {
        let gap = Timestamp.duration(abs(wallClock - newestChange.milliseconds))
        if direction == .ahead {
            return "this machine's clock (\(Timestamp.iso8601(milliseconds: wallClock))) was \(gap) ahead of the "
                + "store's newest change (\(newestChange.iso8601)) when change \(changeID) was made"
        }
        return "this machine's clock (\(Timestamp.iso8601(milliseconds: wallClock))) is \(gap) behind the time of "
            + "the newest change made on it (\(newestChange.iso8601)); change \(changeID) was made with it and "
            + "noted in the store — check the system clock"
    }
}

/// The newest wall time of a change made on this machine, as a batch knows it: read once when the batch first needs
/// it (`stored`), moved on by its writes (`newest`), written once before it commits.
struct OwnWall {
    var stored: Int64?
    var newest: Int64?
}

/// The store's notes of local writes made with the clock set back (`clock_notes`), and the evidence they are judged
/// by: the newest wall time of a change made on this machine (in `meta`). A part of its own over the connection it
/// is given.
struct ClockNotes {
    let db: any Database
    /// How far behind the evidence the clock may be before a write is noted (milliseconds).
    let maxDrift: Int64

    /// The `meta` key of the newest wall time of a change made on this machine.
    static let newestOwnWallKey = "newest_own_wall"
    /// The `meta` key of the evidence the latest note was made against: one note per episode.
    static let notedEvidenceKey = "clock_note_evidence"

    /// Notes the write about to be stamped with the wall clock `wall` when that is more than `maxDrift` behind the
    /// newest change made on this machine, once per episode (while that newest change stays the same), and moves
    /// the newest on when `wall` is past it; returns the note made, if any. Call it inside the write transaction.
    ///
    /// - Parameter batch: a batch's knowledge of the newest wall time, read and moved here and written by
    ///   `write(_:)` before the batch commits; nil outside a batch, where the newest is written at once.
    func note(_ wall: Int64, changeID: String, batch: inout OwnWall?) throws -> ClockWarning? {
        let newest: Int64?
        if let known = batch, known.newest != nil {
            newest = known.newest
        } else {
            newest = try storedNewest()
            if batch != nil { batch = OwnWall(stored: newest, newest: newest) }
        }
        var warning: ClockWarning?
        if let newest, wall < newest - maxDrift {
            let evidence = HLC(milliseconds: min(max(newest, 0), HLC.maxMilliseconds), counter: 0)
            let noted = try db.text(sql: "SELECT value FROM meta WHERE key = ?", arguments: [Self.notedEvidenceKey])
            if noted != evidence.description {
                let made = ClockWarning(direction: .behind, wallClock: wall, newestChange: evidence, changeID: changeID)
                try db.execute(
                    sql: """
                        INSERT INTO clock_notes (change_id, wall_clock, newest_change, direction) VALUES (?, ?, ?, ?)
                        """,
                    arguments: [changeID, Timestamp.iso8601(milliseconds: wall), evidence.description,
                                made.direction.rawValue])
                try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                               arguments: [Self.notedEvidenceKey, evidence.description])
                warning = made
            }
        }
        guard wall > (newest ?? .min) else { return warning }
        if batch != nil {
            batch?.newest = wall
        } else {
            try writeNewest(wall)
        }
        return warning
    }

    /// Writes the newest wall time a batch's writes reached, if they moved it; call it before the batch commits.
    func write(_ batch: OwnWall?) throws {
        guard let batch, let newest = batch.newest, newest != batch.stored else { return }
        try writeNewest(newest)
    }

    /// The newest wall time of a change made on this machine, as stored (nil before the first one made with one).
    func storedNewest() throws -> Int64? {
        try db.text(sql: "SELECT value FROM meta WHERE key = ?", arguments: [Self.newestOwnWallKey])
            .flatMap { Int64($0) }
    }

    private func writeNewest(_ wall: Int64) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                       arguments: [Self.newestOwnWallKey, String(wall)])
    }

    /// Every note, oldest first.
    func all() throws -> [ClockWarning] {
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
}
