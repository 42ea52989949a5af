// MARK: - Placing an import's highlights in the content

extension InteropImporter {
    /// Places the text of every highlight of a book (and of its resized clippings) in the book's part of the
    /// content. A text found at several places takes the one its context (a W3C prefix and suffix) names, else the
    /// one its location predicts: the highlights placed once, with their locations in the source, map a location to
    /// a place in the text (piecewise linearly between the two nearest, beyond them at the book's average rate), and
    /// the nearest place wins when it is clearly nearer (at most half as far as the next). Otherwise it stays
    /// ambiguous: an orphan, "found at N places".
    func placeHighlights(of grouping: ImportGrouping, in scope: BookScope?, cache: inout PassageCache) throws
        -> ImportPlacements
    {
        let placements = ImportPlacements(db: grouping.books.scratch.db)
        try grouping.books.scratch.clearPlacements()
        guard let scope else { return placements }
        let total = try grouping.highlightCount()
        var index = 0
        try grouping.forEachHighlight { item in
            try store.reportProgress("anchoring highlights", done: index, total: total, every: 50)
            index += 1
            var id = try placements.id(of: item)
            if id == nil {
                let placement = try place(item.text, in: scope, cache: &cache)
                var offset: Int?
                if case .anchored(let anchor) = placement {
                    offset = try cache.offset(of: anchor.start, in: anchor.document, store: store)
                }
                id = try placements.insert(placement, of: item, offset: offset)
            }
            if let id { try placements.addHighlight(item, placement: id) }
        }
        // The source's context settles a text found at several places; then the highlights placed once map a
        // location to a place in the text.
        try placements.forEachAmbiguous(withContext: true) { id, highlight in
            guard let anchor = try byContext(highlight.anchors, prefix: highlight.prefix, suffix: highlight.suffix,
                                             cache: &cache) else { return }
            try placements.update(id, to: anchor,
                                  offset: try cache.offset(of: anchor.start, in: anchor.document, store: store))
        }
        try placements.recordKnown()
        try placements.forEachAmbiguous(withContext: false) { id, highlight in
            guard let location = highlight.location else { return }
            let neighbours = try placements.neighbours(of: Double(location))
            guard let predicted = Self.predictedOffset(of: Double(location), below: neighbours.below,
                                                       above: neighbours.above, first: neighbours.first,
                                                       last: neighbours.last) else { return }
            let distances = try highlight.anchors.map { anchor in
                (anchor, try cache.offset(of: anchor.start, in: anchor.document, store: store))
            }.map { ($0.0, $0.1, abs(Double($0.1) - predicted)) }.sorted { $0.2 < $1.2 }
            if distances.count >= 2, distances[0].2 * 2 < distances[1].2 {
                try placements.update(id, to: distances[0].0, offset: distances[0].1)
            }
        }
        return placements
    }

    /// Where a source location falls in the text, from the placed highlights' (location, offset) pairs in location
    /// order: between the nearest two on either side, linearly; beyond them, from the nearest at the average rate
    /// of the first and last; nil with nothing to go by.
    static func predictedOffset(of location: Double, from known: [KnownPlace]) -> Double? {
        predictedOffset(of: location, below: known.last { $0.location <= location },
                        above: known.first { $0.location >= location }, first: known.first, last: known.last)
    }

    /// `predictedOffset(of:from:)`, given the pairs it looks at: the nearest at or below `location` (the last of
    /// equal ones), the nearest at or above (the first), and the first and last of all.
    static func predictedOffset(of location: Double, below: KnownPlace?, above: KnownPlace?, first: KnownPlace?,
                                last: KnownPlace?) -> Double? {
        guard let first, let last else { return nil }
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
            let passages = try cache.passages(of: anchor.document, in: store)
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

extension TextPlacement {
    /// Whether the text is in the content, at one place or at several.
    var isFound: Bool {
        if case .unplaced = self { return false }
        return true
    }
}
