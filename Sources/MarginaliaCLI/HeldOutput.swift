import Marginalia

/// What a command says of the changes held in quarantine: how many, why (made how far ahead of this machine's
/// clock, by which device), and the commands that let them in now.
enum HeldOutput {
    /// The lines for the changes `held` (the store's quarantine), or none when it is empty; `retry` is the
    /// command that takes them in at once and `release` the one that lets every held change in, as the user
    /// would type them.
    static func lines(_ held: [QuarantinedChange], now: Int64, retry: String, release: String) -> [String] {
        guard let furthest = held.max(by: { $0.change.madeAt < $1.change.madeAt }) else { return [] }
        let ahead = furthest.change.madeAt - now
        let devices = Set(held.map(\.change.device))
        let by = devices.count == 1 ? "by device \(furthest.change.device)" : "by \(devices.count) devices"
        let when = (ahead > 0 ? "up to \(Timestamp.duration(ahead)) " : "") + "ahead of this machine's clock"
        return [
            "Held \(Output.count(held.count, "change")) made \(when) (\(by)): each is merged once its time comes.",
            "  To let them in now: \(retry), or \(release)",
        ]
    }
}
