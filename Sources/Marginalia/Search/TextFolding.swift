import Foundation

/// Text folded for matching the way a reader means it: case, diacritics (cedilla ş/ţ and comma-below ș/ț
/// alike, ă, â, î) and soft hyphens do not count; with `.words`, runs of white space and punctuation count
/// as one space. Each folded code point keeps the offset of the code point it came from, so a match in the
/// folded text maps back to a range in the original.
struct FoldedText {
    enum Level {
        /// Case, diacritics and soft hyphens are ignored.
        case letters
        /// As `.letters`, and any run of characters other than letters and digits is one space.
        case words
    }

    /// The folded code points.
    let scalars: [Unicode.Scalar]
    /// For each folded code point, the offset (in code points) of the original one it came from.
    let origins: [Int]
    /// The number of code points in the original text.
    var originalLength: Int { original.count }
    private let original: [Unicode.Scalar]

    init(_ text: String, level: Level = .letters) {
        var scalars: [Unicode.Scalar] = []
        var origins: [Int] = []
        scalars.reserveCapacity(text.unicodeScalars.count)
        origins.reserveCapacity(text.unicodeScalars.count)
        let original = Array(text.unicodeScalars)
        var offset = 0
        for scalar in original {
            if scalar.isASCII && (level == .letters || scalar.isLetterOrDigit) {
                // Most text is ASCII: folded without the allocation of `fold`.
                let value = scalar.value
                scalars.append(value >= 0x41 && value <= 0x5A ? Unicode.Scalar(UInt8(value + 0x20)) : scalar)
                origins.append(offset)
                offset += 1
                continue
            }
            for folded in Self.fold(scalar) {
                if level == .words && !folded.isLetterOrDigit {
                    // One space stands for the whole run, and none at the start.
                    if let last = scalars.last, last != " " {
                        scalars.append(" ")
                        origins.append(offset)
                    }
                } else {
                    scalars.append(folded)
                    origins.append(offset)
                }
            }
            offset += 1
        }
        if level == .words, scalars.last == " " {
            scalars.removeLast()
            origins.removeLast()
        }
        self.scalars = scalars
        self.origins = origins
        self.original = original
    }

    /// The folded text as a string.
    var string: String {
        var result = ""
        result.unicodeScalars.append(contentsOf: scalars)
        return result
    }

    /// The original ranges (in code points) where `needle`, folded the same way, occurs.
    func occurrences(of needle: FoldedText) -> [Range<Int>] {
        scalars.exactOccurrences(of: needle.scalars).map { originalRange(folded: $0) }
    }

    /// The original range (in code points) that a range of folded code points came from: from the code point
    /// of its first folded one to that of its last, with any marks that follow it (they fold to nothing).
    func originalRange(folded range: Range<Int>) -> Range<Int> {
        guard !range.isEmpty else {
            let position = range.lowerBound < origins.count ? origins[range.lowerBound] : originalLength
            return position..<position
        }
        var end = origins[range.upperBound - 1] + 1
        while end < original.count && original[end].properties.generalCategory == .nonspacingMark { end += 1 }
        return origins[range.lowerBound]..<end
    }

    // MARK: - Folding one code point

    /// The soft hyphen, an invisible hint for line breaking that real texts scatter inside words.
    static let softHyphen: Unicode.Scalar = "\u{00AD}"

    private static func fold(_ scalar: Unicode.Scalar) -> [Unicode.Scalar] {
        if scalar.isASCII {
            let value = scalar.value
            if value >= 0x41 && value <= 0x5A, let lower = Unicode.Scalar(value + 0x20) { return [lower] }
            return [scalar]
        }
        if scalar == softHyphen { return [] }
        // Canonical decomposition splits a letter from its marks (ş = s + U+0327, ș = s + U+0326); dropping
        // the nonspacing marks leaves the base letter.
        let decomposed = String(scalar).decomposedStringWithCanonicalMapping.lowercased()
        return decomposed.unicodeScalars.filter { $0.properties.generalCategory != .nonspacingMark }
    }
}

/// The text the full-text indexes see.
enum SearchText {
    /// `text` without soft hyphens, which would otherwise split the words they sit in.
    static func indexable(_ text: String) -> String {
        guard text.unicodeScalars.contains(FoldedText.softHyphen) else { return text }
        var result = ""
        result.unicodeScalars.append(contentsOf: text.unicodeScalars.filter { $0 != FoldedText.softHyphen })
        return result
    }
}
