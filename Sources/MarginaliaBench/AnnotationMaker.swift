import Foundation
import Marginalia

/// Where a reader puts annotations and what they write: a realistic mix of kinds, ranges on word boundaries,
/// colors, tags and Romanian notes, all from a seeded generator.
struct AnnotationMaker {
    /// One passage of the annotated edition, with its words as code-point ranges.
    struct Line {
        let id: String
        let document: String
        let words: [Range<Int>]
        let wordTexts: [String]
        /// The index in `lines` of the next passage of the same document, for ranges that run on.
        let next: Int?
    }

    let text: RomanianText
    let lines: [Line]
    let documents: [(id: String, passages: [String])]

    /// - Throws: `BenchError` when the sample has no passage, or a document without passages.
    init(source: ContentSource, text: RomanianText) throws {
        self.text = text
        var lines: [Line] = []
        var documents: [(String, [String])] = []
        for document in source.documents {
            documents.append((document.id, document.passages.map(\.id)))
            for (index, passage) in document.passages.enumerated() {
                let scalars = Array(passage.text.unicodeScalars)
                var words: [Range<Int>] = []
                var start: Int?
                for (offset, scalar) in scalars.enumerated() {
                    let inWord = scalar.properties.isAlphabetic || (start != nil && scalar == "-")
                    if inWord, start == nil { start = offset }
                    if !inWord, let begin = start {
                        words.append(begin..<offset)
                        start = nil
                    }
                }
                if let begin = start { words.append(begin..<scalars.count) }
                let next = index + 1 < document.passages.count ? lines.count + 1 : nil
                lines.append(Line(
                    id: passage.id, document: document.id, words: words,
                    wordTexts: words.map { String(String.UnicodeScalarView(scalars[$0])) }, next: next))
            }
        }
        self.lines = lines
        self.documents = documents
        guard !lines.isEmpty, documents.allSatisfy({ !$0.1.isEmpty }) else {
            throw BenchError("the sample \(source.edition) has no passages, or a document without passages")
        }
    }

    /// One new annotation: 60 % highlights, 28 % notes, 12 % bookmarks.
    struct Request {
        var kind: AnnotationKind
        var anchor: AnchorRequest
        var note: String?
        var color: String?
        var tags: [String]
    }

    func request(using random: inout SeededGenerator) -> Request {
        let line = random.pick(lines)
        let roll = Double.random(in: 0..<1, using: &random)
        let kind: AnnotationKind = roll < 0.60 ? .highlight : roll < 0.88 ? .note : .bookmark
        if kind == .bookmark {
            let title = random.chance(0.6) ? text.bookmarkTitle(using: &random) : nil
            return Request(kind: .bookmark, anchor: AnchorRequest(passage: line.id), note: title, color: nil, tags: [])
        }
        var anchor = AnchorRequest(passage: line.id)
        if !line.words.isEmpty && random.chance(0.9) {
            let first = Int.random(in: 0..<line.words.count, using: &random)
            let last = min(line.words.count - 1, first + Int.random(in: 0...5, using: &random))
            anchor.start = line.words[first].lowerBound
            anchor.end = line.words[last].upperBound
        }
        // Now and then a range runs on into the next passage (a stanza, say).
        if let next = line.next, random.chance(0.08), !lines[next].words.isEmpty {
            let nextLine = lines[next]
            anchor.end = nil
            anchor.endPassage = nextLine.id
            anchor.endOffset = nextLine.words[Int.random(in: 0..<nextLine.words.count, using: &random)].upperBound
        }
        let tagCount = random.chance(kind == .note ? 0.35 : 0.2) ? Int.random(in: 1...2, using: &random) : 0
        let tags = Array(Set((0..<tagCount).map { _ in random.pick(RomanianText.tags) })).sorted()
        if kind == .highlight {
            let note = random.chance(0.15) ? text.sentence(line.wordTexts, using: &random) : nil
            return Request(kind: .highlight, anchor: anchor, note: note,
                           color: RomanianText.colors.randomElement(using: &random), tags: tags)
        }
        return Request(kind: .note, anchor: anchor, note: text.note(about: line.wordTexts, using: &random),
                       color: random.chance(0.3) ? RomanianText.colors.randomElement(using: &random) : nil, tags: tags)
    }

    /// Creates `count` annotations in one transaction; returns their ids and the time it took.
    func createBatch(_ count: Int, in store: AnnotationStore, using random: inout SeededGenerator) throws
        -> (ids: [String], seconds: Double)
    {
        // The requests are made before the clock starts: the benchmark times the store, not the generator.
        let requests = (0..<count).map { _ in request(using: &random) }
        var ids: [String] = []
        ids.reserveCapacity(count)
        let (_, seconds) = try Timing.time {
            try store.batch {
                for request in requests {
                    let annotation = try store.createAnnotation(
                        request.kind, at: request.anchor, note: request.note, color: request.color, tags: request.tags)
                    ids.append(annotation.id)
                }
            }
        }
        return (ids, seconds)
    }

    /// Edits `count` of `ids` in one transaction, the way a reader revisits annotations: mostly notes rewritten,
    /// colors and tags changed, 5 % deleted, a few brought back; and sets reading positions now and then.
    /// Returns the number of changes written.
    func editBatch(_ count: Int, ids: [String], deleted: inout Set<String>, in store: AnnotationStore,
                   using random: inout SeededGenerator) throws -> Int {
        guard !ids.isEmpty else { return 0 }
        var written = 0
        try store.batch {
            for _ in 0..<count {
                let id = random.pick(ids)
                let roll = Double.random(in: 0..<1, using: &random)
                do {
                    if deleted.contains(id) {
                        if roll < 0.2 {
                            try store.undeleteAnnotation(id: id)
                            deleted.remove(id)
                            written += 1
                        }
                        continue
                    }
                    if roll < 0.62 {
                        let line = random.pick(lines)
                        try store.editAnnotation(id: id, note: text.note(about: line.wordTexts, using: &random))
                    } else if roll < 0.80 {
                        try store.editAnnotation(id: id, color: RomanianText.colors.randomElement(using: &random))
                    } else if roll < 0.88 {
                        try store.editAnnotation(id: id, addTags: [random.pick(RomanianText.tags)])
                    } else if roll < 0.92 {
                        try store.editAnnotation(
                            id: id, removeTags: [random.pick(RomanianText.tags)])
                    } else if roll < 0.97 {
                        try store.deleteAnnotation(id: id)
                        deleted.insert(id)
                    } else {
                        let document = random.pick(documents)
                        let passage = random.pick(document.passages)
                        try store.setPosition(document: document.id, at: TextPosition(passage: passage, offset: 0))
                    }
                    written += 1
                } catch let error as MarginaliaError {
                    // The edit would change nothing (the same color, a tag already there): a reader's no-op.
                    switch error.reason {
                    case .store(.unchanged), .store(.invalidChange): continue
                    default: throw error
                    }
                }
            }
        }
        return written
    }
}
