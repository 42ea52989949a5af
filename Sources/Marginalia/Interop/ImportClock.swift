/// Clocks for an imported annotation's changes: the source's dates, made strictly increasing (a change without a
/// date, or dated before the one it follows, comes just after it).
struct ImportClock {
    private var last: HLC?

    /// The clock of the next change, made by the item on `line` at `date` (milliseconds since 1970).
    /// - Throws: `StoreError.invalidChange` naming the item when the clock is after the latest the log holds.
    mutating func next(_ date: Int64?, line: Int) throws -> HLC {
        let milliseconds = max(0, min(date ?? 0, HLC.maxMilliseconds))
        let hlc: HLC
        if let last, milliseconds <= last.milliseconds {
            hlc = last.counter < HLC.maxCounter
                ? HLC(milliseconds: last.milliseconds, counter: last.counter + 1)
                : HLC(milliseconds: last.milliseconds + 1, counter: 0)
        } else {
            hlc = HLC(milliseconds: milliseconds, counter: 0)
        }
        last = try Self.checked(hlc, line: line)
        return hlc
    }

    /// `hlc`, the clock of a change made by the item on `line`, when the log can hold it (`HLC.checkStorable`): a
    /// source may date an item up to the year 9999, later than the log holds.
    /// - Throws: `StoreError.invalidChange` naming the item and the field `hlc`: nothing is imported.
    static func checked(_ hlc: HLC, line: Int) throws -> HLC {
        do {
            try hlc.checkStorable()
        } catch {
            throw StoreError.invalidChange(reason: "the item on line \(line): \(error): nothing was imported")
        }
        return hlc
    }
}
