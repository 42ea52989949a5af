/// Finds where an anchor's quote is in a new edition's text: exactly, ignoring spelling variants, or as a
/// close match.
///
/// The rule, in order of preference:
/// 1. **exact**: the quote's code points, unchanged;
/// 2. **folded**: the quote with case, diacritics (cedilla ş/ţ and comma-below ș/ț alike, ă/â/î), soft hyphens,
///    and runs of white space and punctuation ignored (`FoldedText.Level.words`);
/// 3. **close**: on that folded text, the substring with the fewest edits (insertions, deletions,
///    substitutions: Levenshtein distance, found with Sellers' algorithm) — accepted only when the quote folds to
///    at least `minimumFuzzyLength` characters and the edits are at most `maxEditRatio` of its length (a quote of
///    40 characters may differ by 10).
/// Among equally good matches the one nearest the anchor's old position wins. A close match that starts or ends
/// inside a word is widened to the whole word when the quote started or ended at a word boundary. A match worse
/// than the threshold is no match: the anchor is left orphaned rather than moved somewhere wrong.
struct AnchorMatcher {
    /// The most edits a close match may need, as a fraction of the folded quote's length.
    static let maxEditRatio = 0.25
    /// Quotes that fold to fewer characters are matched exactly or folded, never approximately.
    static let minimumFuzzyLength = 5

    enum Quality: Equatable, Comparable {
        case exact
        case folded
        /// With this many edits on the folded text.
        case close(edits: Int)
    }

    struct Match: Equatable {
        /// In code points of the text searched.
        var range: Range<Int>
        var quality: Quality
    }

    /// The best place for `quote` in `text`, nearest `origin` (a code-point offset) among equals; nil when there
    /// is no acceptable match. `wholeWords` says whether the quote began and ended at word boundaries.
    static func locate(_ quote: String, in text: [Unicode.Scalar], near origin: Int,
                       wholeWords: (start: Bool, end: Bool) = (true, true)) -> Match? {
        let needle = Array(quote.unicodeScalars)
        guard !needle.isEmpty else { return nil }
        if let range = nearest(text.exactOccurrences(of: needle), to: origin) {
            return Match(range: range, quality: .exact)
        }
        let foldedText = FoldedText(String(scalars: text), level: .words)
        let foldedQuote = FoldedText(quote, level: .words)
        guard !foldedQuote.scalars.isEmpty else { return nil }
        if let range = nearest(foldedText.occurrences(of: foldedQuote), to: origin) {
            return Match(range: range, quality: .folded)
        }
        guard foldedQuote.scalars.count >= minimumFuzzyLength else { return nil }
        let allowed = Int(Double(foldedQuote.scalars.count) * maxEditRatio)
        guard let (folded, edits) = closest(foldedQuote.scalars, in: foldedText, near: origin, allowing: allowed) else {
            return nil
        }
        var range = foldedText.originalRange(folded: folded)
        if wholeWords.start {
            while range.lowerBound > 0 && text[range.lowerBound - 1].isLetterDigitOrInWordMark {
                range = (range.lowerBound - 1)..<range.upperBound
            }
        }
        if wholeWords.end {
            while range.upperBound < text.count && text[range.upperBound].isLetterDigitOrInWordMark {
                range = range.lowerBound..<(range.upperBound + 1)
            }
        }
        return Match(range: range, quality: .close(edits: edits))
    }

    private static func nearest(_ ranges: [Range<Int>], to origin: Int) -> Range<Int>? {
        ranges.min { abs($0.lowerBound - origin) < abs($1.lowerBound - origin) }
    }

    /// Sellers' algorithm: the substring of `text` with the fewest edits from `pattern`, where a match may start
    /// anywhere; ties go to the match nearest `origin`. O(pattern × text) time, O(pattern) memory.
    private static func closest(_ pattern: [Unicode.Scalar], in text: FoldedText, near origin: Int,
                                allowing allowed: Int) -> (Range<Int>, Int)? {
        let haystack = text.scalars
        guard !haystack.isEmpty else { return nil }
        let m = pattern.count
        var previous = Array(0...m)
        var previousStart = Array(repeating: 0, count: m + 1)
        var current = previous
        var currentStart = previousStart
        var best: (range: Range<Int>, edits: Int, distance: Int)?
        for j in 1...haystack.count {
            current[0] = 0
            currentStart[0] = j
            for i in 1...m {
                let substitution = previous[i - 1] + (pattern[i - 1] == haystack[j - 1] ? 0 : 1)
                let deletion = current[i - 1] + 1
                let insertion = previous[i] + 1
                if substitution <= deletion && substitution <= insertion {
                    current[i] = substitution
                    currentStart[i] = previousStart[i - 1]
                } else if deletion <= insertion {
                    current[i] = deletion
                    currentStart[i] = currentStart[i - 1]
                } else {
                    current[i] = insertion
                    currentStart[i] = previousStart[i]
                }
            }
            let edits = current[m]
            if edits <= allowed {
                let range = trimmed(currentStart[m]..<j, in: haystack)
                let distance = abs(text.originalRange(folded: range).lowerBound - origin)
                if let known = best, (known.edits, known.distance) <= (edits, distance) {
                    // Keep the better (fewer edits) or nearer match found earlier.
                } else {
                    best = (range, edits, distance)
                }
            }
            swap(&previous, &current)
            swap(&previousStart, &currentStart)
        }
        return best.map { ($0.range, $0.edits) }
    }

    /// The range without leading or trailing spaces (a close match may take in a neighbouring space).
    private static func trimmed(_ range: Range<Int>, in text: [Unicode.Scalar]) -> Range<Int> {
        var lower = range.lowerBound
        var upper = range.upperBound
        while lower < upper && text[lower] == " " { lower += 1 }
        while upper > lower && text[upper - 1] == " " { upper -= 1 }
        return lower..<upper
    }
}
