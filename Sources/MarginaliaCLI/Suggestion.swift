/// The nearest of some names to a word that was mistyped: "did you mean 'highlight'?".
enum Suggestion {
    /// The candidate closest to `word` by edit distance (a swap of two neighbours counts as one edit), when it is
    /// close enough to be what was meant: at most one edit in three characters, and at least one edit allowed.
    /// Ties go to the first candidate.
    static func nearest(to word: String, among candidates: [String]) -> String? {
        let allowed = max(1, word.count / 3)
        var best: (name: String, distance: Int)?
        for candidate in candidates where candidate != word {
            let distance = Self.distance(word.lowercased(), candidate.lowercased())
            if distance <= allowed && distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// `"; did you mean 'NAME'?"` for the nearest candidate, or the empty string.
    static func hint(for word: String, among candidates: [String]) -> String {
        nearest(to: word, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// The optimal string alignment distance: insertions, deletions, substitutions and swaps of adjacent
    /// characters, each one edit.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], before[j - 2] + 1)
                }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
