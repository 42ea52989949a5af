/// Where a person asks to place an annotation, before it is checked against the content.
///
/// `luceafarul.3` alone means the whole passage; `luceafarul.3:4-10` a range of code points in it;
/// `quote` finds the text instead of counting offsets; `endPassage` extends the range to a later passage of
/// the same document.
public struct AnchorRequest: Equatable, Sendable {
    /// The passage the range starts in, e.g. `luceafarul.3`.
    public var passage: String
    /// Start offset in `passage`, in code points; nil for the start of the passage.
    public var start: Int?
    /// End offset in `passage` (exclusive); ignored when `endPassage` is given.
    public var end: Int?
    /// Text to find in the passage (or in the passages up to `endPassage`); it must occur exactly once.
    public var quote: String?
    /// The passage the range ends in, when it spans several.
    public var endPassage: String?
    /// End offset in `endPassage`; nil for the end of that passage.
    public var endOffset: Int?

    /// A request for a range starting in `passage`; see the properties for what each part means.
    public init(passage: String, start: Int? = nil, end: Int? = nil, quote: String? = nil,
                endPassage: String? = nil, endOffset: Int? = nil) {
        self.passage = passage
        self.start = start
        self.end = end
        self.quote = quote
        self.endPassage = endPassage
        self.endOffset = endOffset
    }
}

/// One or more consecutive passages seen as one text, joined by line feeds, with offsets in code points.
struct PassageSpan {
    let passages: [Passage]
    let scalars: [Unicode.Scalar]
    /// Where each passage starts in `scalars`.
    let starts: [Int]
    let lengths: [Int]

    init(_ passages: [Passage]) {
        self.passages = passages
        var scalars: [Unicode.Scalar] = []
        var starts: [Int] = []
        var lengths: [Int] = []
        for passage in passages {
            if !scalars.isEmpty { scalars.append("\n") }
            starts.append(scalars.count)
            let before = scalars.count
            scalars.append(contentsOf: passage.text.unicodeScalars)
            lengths.append(scalars.count - before)
        }
        self.scalars = scalars
        self.starts = starts
        self.lengths = lengths
    }

    /// The range a request gives by offsets (or the whole span when it gives none).
    func range(for request: AnchorRequest) throws -> Range<Int> {
        let firstLength = lengths[0]
        let start = request.start ?? 0
        guard start <= firstLength else {
            throw StoreError.invalidAnchor(
                reason: "offset \(start) is past the end of \(passages[0].id) (\(firstLength) characters)")
        }
        if passages.count > 1 {
            let lastIndex = passages.count - 1
            let end = request.endOffset ?? lengths[lastIndex]
            guard end <= lengths[lastIndex] else {
                throw StoreError.invalidAnchor(
                    reason: "offset \(end) is past the end of \(passages[lastIndex].id) "
                        + "(\(lengths[lastIndex]) characters)")
            }
            return start..<(starts[lastIndex] + end)
        }
        let end = request.end ?? firstLength
        guard end <= firstLength else {
            throw StoreError.invalidAnchor(
                reason: "offset \(end) is past the end of \(passages[0].id) (\(firstLength) characters)")
        }
        guard start < end else {
            throw StoreError.invalidAnchor(reason: "the range \(start)-\(end) is empty or reversed")
        }
        return start..<end
    }

    /// The one place where `quote` occurs: exactly (after NFC normalization), or else ignoring case and
    /// diacritics; inside the offsets of the request when it gives them.
    func find(quote: String, within request: AnchorRequest) throws -> Range<Int> {
        let bounds = (request.start != nil || request.end != nil || request.endOffset != nil)
            ? try range(for: request) : 0..<scalars.count
        let needle = Array(quote.precomposedStringWithCanonicalMapping.unicodeScalars)
        guard !needle.isEmpty else { throw StoreError.invalidAnchor(reason: "the quote is empty") }
        var matches = scalars.exactOccurrences(of: needle)
            .filter { bounds.contains($0.lowerBound) && $0.upperBound <= bounds.upperBound }
        if matches.isEmpty {
            let folded = FoldedText(String(scalars: scalars))
            matches = folded.occurrences(of: FoldedText(quote))
                .filter { bounds.contains($0.lowerBound) && $0.upperBound <= bounds.upperBound }
        }
        let place = passages.count == 1 ? passages[0].id : "\(passages[0].id)…\(passages[passages.count - 1].id)"
        guard let match = matches.first else {
            throw StoreError.invalidAnchor(reason: "\"\(quote)\" is not in \(place)")
        }
        guard matches.count == 1 else {
            throw StoreError.invalidAnchor(
                reason: "\"\(quote)\" occurs \(matches.count) times in \(place); "
                    + "give offsets (PASSAGE:START-END) to choose")
        }
        return match
    }

    func text(_ range: Range<Int>) -> String { String(scalars: scalars[range]) }

    /// The passage and offset where a range starting at `offset` begins (a line feed starts the next passage).
    func position(ofStart offset: Int) -> TextPosition {
        for index in passages.indices.reversed() where starts[index] <= offset {
            return TextPosition(passage: passages[index].id, offset: offset - starts[index])
        }
        return TextPosition(passage: passages[0].id, offset: 0)
    }

    /// The passage and offset where a range ending (exclusively) at `offset` ends.
    func position(ofEnd offset: Int) -> TextPosition {
        for index in passages.indices where offset <= starts[index] + lengths[index] {
            return TextPosition(passage: passages[index].id, offset: max(0, offset - starts[index]))
        }
        let last = passages.count - 1
        return TextPosition(passage: passages[last].id, offset: lengths[last])
    }

    /// Up to `Anchor.contextLength` code points before `offset`, within its passage.
    func context(before offset: Int) -> String {
        let start = position(ofStart: offset)
        guard let index = passages.firstIndex(where: { $0.id == start.passage }) else { return "" }
        let lower = max(starts[index], offset - Anchor.contextLength)
        return String(scalars: scalars[lower..<offset])
    }

    /// Up to `Anchor.contextLength` code points after `offset`, within its passage.
    func context(after offset: Int) -> String {
        let end = position(ofEnd: offset)
        guard let index = passages.firstIndex(where: { $0.id == end.passage }) else { return "" }
        let upper = min(starts[index] + lengths[index], offset + Anchor.contextLength)
        return offset < upper ? String(scalars: scalars[offset..<upper]) : ""
    }
}

extension String {
    /// A string made of these code points.
    init<S: Sequence>(scalars: S) where S.Element == Unicode.Scalar {
        // Encoded into one buffer and validated once: appending to `unicodeScalars` re-checks the string at
        // every code point.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(scalars.underestimatedCount * 2)
        for scalar in scalars { UTF8.encode(scalar) { bytes.append($0) } }
        self = String(decoding: bytes, as: UTF8.self)
    }
}
