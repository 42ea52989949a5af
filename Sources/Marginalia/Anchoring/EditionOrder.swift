/// The order of content editions, read from their names.
///
/// An edition is named `WORK-VERSION`, where `VERSION` (after the last `-`) is one or more decimal numbers
/// separated by dots: `eminescu-2026.1`, `eminescu-2026.2`, `tiny-1`. Two editions of the same `WORK` are ordered
/// by their numbers, compared one by one from the left as integers, a missing number counting as 0:
/// `eminescu-2026.2` < `eminescu-2026.10` < `eminescu-2027.1`, and `tiny-2` = `tiny-2.0`. Editions of different
/// works, and names that do not have this form, have no order.
package enum EditionOrder {
    /// How edition `a` compares to edition `b`: `.orderedAscending` when `a` is older; nil when they cannot be
    /// compared.
    ///
    ///     EditionOrder.compare("eminescu-2026.1", "eminescu-2026.2")  // .orderedAscending
    ///     EditionOrder.compare("tiny-1", "eminescu-2026.2")           // nil
    package static func compare(_ a: String, _ b: String) -> Ordering? {
        guard let left = parse(a), let right = parse(b), left.work == right.work else { return nil }
        for index in 0..<max(left.version.count, right.version.count) {
            let x = index < left.version.count ? left.version[index] : 0
            let y = index < right.version.count ? right.version[index] : 0
            if x != y { return x < y ? .orderedAscending : .orderedDescending }
        }
        return .orderedSame
    }

    /// Whether edition `a` is known to be older than edition `b`.
    package static func isOlder(_ a: String, than b: String) -> Bool {
        compare(a, b) == .orderedAscending
    }

    /// The result of comparing two editions.
    package enum Ordering: Sendable, Equatable {
        case orderedAscending, orderedSame, orderedDescending
    }

    /// The work and version numbers of an edition name, or nil when it does not have the form `WORK-VERSION`.
    static func parse(_ name: String) -> (work: Substring, version: [Int])? {
        guard let dash = name.lastIndex(of: "-") else { return nil }
        let work = name[..<dash]
        let parts = name[name.index(after: dash)...].split(separator: ".", omittingEmptySubsequences: false)
        guard !work.isEmpty, !parts.isEmpty else { return nil }
        var version: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let number = Int(part) else {
                return nil
            }
            version.append(number)
        }
        return (work, version)
    }
}
