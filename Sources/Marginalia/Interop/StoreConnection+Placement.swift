// MARK: - Placing an import's highlights in the content

extension StoreConnection {
    /// Places the text of every highlight of a book (and of its resized clippings) in the book's part of the
    /// content. A text found at several places takes the one its context (a W3C prefix and suffix) names, else the
    /// one its location predicts: the highlights placed once, with their locations in the source, map a location to
    /// a place in the text (piecewise linearly between the two nearest, beyond them at the book's average rate), and
    /// the nearest place wins when it is clearly nearer (at most half as far as the next). Otherwise it stays
    /// ambiguous: an orphan, "found at N places".
    func placeHighlights(of groups: [ImportGroup], in scope: BookScope?, cache: inout PassageCache) throws
        -> [PlacementKey: TextPlacement]
    {
        guard let scope else { return [:] }
        // Walked lazily, several times, rather than copied: a book may have a great many highlights.
        let items = groups.lazy.flatMap { [$0.first] + $0.revisions }.filter { $0.kind == .highlight }
        let total = items.count
        var placements: [PlacementKey: TextPlacement] = [:]
        for (index, item) in items.enumerated() where placements[PlacementKey(item)] == nil {
            try reportProgress("anchoring highlights", done: index, total: total, every: 50)
            placements[PlacementKey(item)] = try place(item.text, in: scope, cache: &cache)
        }
        for item in items where item.prefix != nil || item.suffix != nil {
            guard case .ambiguous(let anchors)? = placements[PlacementKey(item)] else { continue }
            if let anchor = try byContext(anchors, prefix: item.prefix, suffix: item.suffix, cache: &cache) {
                placements[PlacementKey(item)] = .anchored(anchor)
            }
        }
        var known: [(location: Double, offset: Double)] = []
        for item in items {
            guard let start = item.location.start, case .anchored(let anchor)? = placements[PlacementKey(item)] else {
                continue
            }
            known.append((Double(start), Double(try cache.offset(of: anchor.start, in: anchor.document, store: self))))
        }
        known.sort { $0.location < $1.location }
        for item in items {
            guard let start = item.location.start, case .ambiguous(let anchors)? = placements[PlacementKey(item)],
                  let predicted = Self.predictedOffset(of: Double(start), from: known) else { continue }
            let distances = try anchors.map { anchor in
                (anchor, abs(Double(try cache.offset(of: anchor.start, in: anchor.document, store: self)) - predicted))
            }.sorted { $0.1 < $1.1 }
            if distances.count >= 2, distances[0].1 * 2 < distances[1].1 {
                placements[PlacementKey(item)] = .anchored(distances[0].0)
            }
        }
        return placements
    }

    /// Where a source location falls in the text, from the placed highlights' (location, offset) pairs in location
    /// order: between the nearest two on either side, linearly; beyond them, from the nearest at the average rate
    /// of the first and last; nil with nothing to go by.
    static func predictedOffset(of location: Double, from known: [(location: Double, offset: Double)]) -> Double? {
        guard let first = known.first, let last = known.last else { return nil }
        let below = known.last { $0.location <= location }
        let above = known.first { $0.location >= location }
        if let below, let above {
            guard above.location > below.location else { return (below.offset + above.offset) / 2 }
            return below.offset + (location - below.location) / (above.location - below.location)
                * (above.offset - below.offset)
        }
        guard last.location > first.location else { return nil }
        let rate = (last.offset - first.offset) / (last.location - first.location)
        let side = below ?? first
        return side.offset + (location - side.location) * rate
    }

    /// The one place of `anchors` whose text before and after, across passages, is the source's `prefix` and
    /// `suffix` (folded: case, diacritics, punctuation and spacing do not count); nil when not exactly one fits best.
    private func byContext(_ anchors: [Anchor], prefix: String?, suffix: String?, cache: inout PassageCache) throws
        -> Anchor?
    {
        func folded(_ text: String) -> String { FoldedText(text, level: .words).string }
        let before = prefix.map(folded)
        let after = suffix.map(folded)
        var scored: [(anchor: Anchor, score: Int)] = []
        for anchor in anchors {
            let passages = try cache.passages(of: anchor.document, in: self)
            guard let first = passages.firstIndex(where: { $0.id == anchor.start.passage }),
                  let last = passages.firstIndex(where: { $0.id == anchor.end.passage }) else { continue }
            var score = 0
            if let before, !before.isEmpty {
                let wanted = before.unicodeScalars.count + 1
                let head = passages[first].text.unicodeScalars.prefix(anchor.start.offset)
                var text = String(String.UnicodeScalarView(head))
                var index = first
                while text.unicodeScalars.count < wanted, index > 0 {
                    index -= 1
                    text = passages[index].text + "\n" + text
                }
                if folded(text).hasSuffix(before) { score += 1 }
            }
            if let after, !after.isEmpty {
                let wanted = after.unicodeScalars.count + 1
                let tail = passages[last].text.unicodeScalars.dropFirst(anchor.end.offset)
                var text = String(String.UnicodeScalarView(tail))
                var index = last
                while text.unicodeScalars.count < wanted, index < passages.count - 1 {
                    index += 1
                    text += "\n" + passages[index].text
                }
                if folded(text).hasPrefix(after) { score += 1 }
            }
            scored.append((anchor, score))
        }
        guard let best = scored.map(\.score).max(), best > 0 else { return nil }
        let fitting = scored.filter { $0.score == best }
        return fitting.count == 1 ? fitting[0].anchor : nil
    }
}

/// A highlight's text at its place in the source: the same text highlighted at two places is two highlights.
struct PlacementKey: Hashable {
    let text: String
    let location: ItemLocation
    let prefix: String?
    let suffix: String?

    init(_ item: ImportItem) {
        text = item.text
        location = item.location
        prefix = item.prefix
        suffix = item.suffix
    }
}

extension TextPlacement {
    /// Whether the text is in the content, at one place or at several.
    var isFound: Bool {
        if case .unplaced = self { return false }
        return true
    }
}
