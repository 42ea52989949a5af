/// Clocks for an imported annotation's changes: the source's dates, made strictly increasing (a change without a
/// date, or dated before the one it follows, comes just after it).
struct ImportClock {
    private var last: HLC?

    mutating func next(_ date: Int64?) -> HLC {
        let milliseconds = max(0, min(date ?? 0, HLC.maxMilliseconds))
        let hlc: HLC
        if let last, milliseconds <= last.milliseconds {
            hlc = last.counter < HLC.maxCounter
                ? HLC(milliseconds: last.milliseconds, counter: last.counter + 1)
                : HLC(milliseconds: last.milliseconds + 1, counter: 0)
        } else {
            hlc = HLC(milliseconds: milliseconds, counter: 0)
        }
        last = hlc
        return hlc
    }
}
