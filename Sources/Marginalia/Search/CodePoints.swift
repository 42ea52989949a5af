/// Searching and classifying text as code points: the one place for exact matching and for what counts as
/// part of a word.
extension Array where Element == Unicode.Scalar {
    /// Every range where `needle` occurs exactly (code point for code point), overlapping ones included, in order.
    func exactOccurrences(of needle: [Unicode.Scalar]) -> [Range<Int>] {
        guard !needle.isEmpty, needle.count <= count else { return [] }
        var result: [Range<Int>] = []
        for index in 0...(count - needle.count)
        where self[index] == needle[0] && self[index..<index + needle.count].elementsEqual(needle) {
            result.append(index..<index + needle.count)
        }
        return result
    }
}

extension Unicode.Scalar {
    /// Whether this is a letter or a digit: what folding to words keeps (marks and soft hyphens are already gone
    /// by then).
    var isLetterOrDigit: Bool {
        properties.isAlphabetic || properties.numericType != nil
    }

    /// Whether this is a letter, a digit, or one of the nonspacing marks and soft hyphens that sit inside words
    /// of unfolded text: what widening a match to whole words takes in.
    var isLetterDigitOrInWordMark: Bool {
        isLetterOrDigit || properties.generalCategory == .nonspacingMark || self == FoldedText.softHyphen
    }
}
