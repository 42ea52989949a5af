/// Every exact occurrence of a text in one document's text (its passages joined by a line feed), found through a
/// sorted table of the document's six-code-point pieces: what places most imported clippings, whose text is
/// copied from the book, without a full-text search and a match per proposed passage. Built once per document
/// and import: 16 bytes and 4 per code point of the document.
struct ExactTextIndex {
    /// How many code points a key holds: a text shorter than this is left to the matcher.
    static let keyLength = 6

    let span: PassageSpan
    /// The keys of every position, sorted, and the positions in the same order.
    private let keys: [Key]
    private let positions: [Int32]

    /// Six code points, three to a word (21 bits each).
    private struct Key: Comparable {
        var high: UInt64
        var low: UInt64

        init(_ scalars: ArraySlice<Unicode.Scalar>) {
            var words: [UInt64] = [0, 0]
            for (index, scalar) in scalars.enumerated() { words[index / 3] = words[index / 3] << 21 | UInt64(scalar.value) }
            high = words[0]
            low = words[1]
        }

        static func < (a: Key, b: Key) -> Bool { (a.high, a.low) < (b.high, b.low) }
    }

    init(_ passages: [Passage]) {
        span = PassageSpan(passages)
        let scalars = span.scalars
        guard scalars.count >= Self.keyLength else {
            keys = []
            positions = []
            return
        }
        var pairs: [(Key, Int32)] = []
        pairs.reserveCapacity(scalars.count - Self.keyLength + 1)
        for start in 0...(scalars.count - Self.keyLength) {
            pairs.append((Key(scalars[start..<start + Self.keyLength]), Int32(start)))
        }
        pairs.sort { $0.0 < $1.0 }
        keys = pairs.map(\.0)
        positions = pairs.map(\.1)
    }

    /// The ranges of `needle` in the document's text, in text order; nil when the needle is too short for the index.
    func occurrences(of needle: [Unicode.Scalar]) -> [Range<Int>]? {
        guard needle.count >= Self.keyLength else { return nil }
        let key = Key(needle[0..<Self.keyLength])
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        var found: [Range<Int>] = []
        let scalars = span.scalars
        var index = low
        while index < keys.count && keys[index] == key {
            let start = Int(positions[index])
            if start + needle.count <= scalars.count, scalars[start..<start + needle.count].elementsEqual(needle) {
                found.append(start..<start + needle.count)
            }
            index += 1
        }
        return found.sorted { $0.lowerBound < $1.lowerBound }
    }
}
