import Foundation
import Marginalia

/// A seeded generator (SplitMix64), so that the same seed makes the same store.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed &+ 0x9E37_79B9_7F4A_7C15
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// An element of `array`, which must not be empty: the arrays picked from are literals, or made from the
    /// sample by `RomanianText` and `AnnotationMaker`, which refuse a sample that would leave one empty.
    mutating func pick<T>(_ array: [T]) -> T {
        array[Int.random(in: 0..<array.count, using: &self)]
    }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < p
    }

    /// A lowercase UUID made from this generator (for ids the benchmark makes itself).
    mutating func uuid() -> String {
        let high = next()
        let low = next()
        let hex = String(format: "%016llx%016llx", high, low)
        let characters = Array(hex)
        func part(_ range: Range<Int>) -> String { String(characters[range]) }
        return "\(part(0..<8))-\(part(8..<12))-4\(part(13..<16))-a\(part(17..<20))-\(part(20..<32))"
    }
}

/// Romanian text made from the sample: its real lines and words, recombined into notes and passages.
struct RomanianText {
    /// Every passage text of the sample edition.
    let lines: [String]
    /// Every word of the sample (with repeats, so common words come up as often as in the poems).
    let words: [String]
    /// Distinct words of at least five letters that carry a diacritic: what a reader looks up.
    let searchableWords: [String]
    let titles: [String]

    /// - Throws: `BenchError` when the sample has no passage, no title or no word worth searching for.
    init(source: ContentSource) throws {
        var lines: [String] = []
        var titles: [String] = []
        for document in source.documents {
            titles.append(document.title)
            lines.append(contentsOf: document.passages.map(\.text))
        }
        self.lines = lines
        self.titles = titles
        var words: [String] = []
        var searchable = Set<String>()
        for line in lines {
            for word in Self.words(in: line) {
                words.append(word)
                let lower = word.lowercased()
                if lower.unicodeScalars.count >= 5, Self.fold(lower) != lower, !lower.contains("-") {
                    searchable.insert(lower)
                }
            }
        }
        self.words = words
        searchableWords = searchable.sorted()
        guard !lines.isEmpty, !titles.isEmpty, !searchableWords.isEmpty else {
            throw BenchError("the sample \(source.edition) has no passages, titles or searchable words")
        }
    }

    /// The words of a line: runs of letters, hyphens and apostrophes inside a word kept (`ca-n`, `dulce-ntre`).
    static func words(in line: String) -> [String] {
        line.split(whereSeparator: { !($0.isLetter || $0 == "-") }).map { String($0) }
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "-")) }.filter { !$0.isEmpty }
    }

    /// `text` without diacritics, as a reader types on a keyboard without them: `ştiinţă` → `stiinta`.
    static func fold(_ text: String) -> String {
        var result = ""
        result.unicodeScalars.append(contentsOf: text.decomposedStringWithCanonicalMapping.unicodeScalars
            .filter { $0.properties.generalCategory != .nonspacingMark })
        return result
    }

    // MARK: - Notes

    private static let openings = [
        "Aici", "În strofa aceasta", "De reținut:", "Mi se pare că", "Atenție la ritm:", "Comparație interesantă:",
        "Observ că", "La a doua lectură,", "Profesorul spunea că", "Pentru lucrare:", "Ca în „Luceafărul”,",
        "Nu sunt sigur, dar", "Foarte frumos:", "Motiv romantic:", "Întrebare pentru seminar:",
    ]
    private static let middles = [
        "imaginea {w} revine ca un leitmotiv", "cuvântul „{w}” schimbă tonul întregului vers",
        "antiteza dintre {w} și {v} e construită cu grijă", "natura oglindește sufletul poetului",
        "timpul trece, dar {w} rămâne", "rima îmbrățișată susține ideea de {w}",
        "epitetul „{w}” e neașteptat aici", "se simte influența folclorului", "tema iubirii pierdute apare din nou",
        "versul pare o trimitere la {w}", "metafora cu {w} merită comentată", "ritmul se rupe intenționat",
        "e un ecou din „{t}”", "apare motivul visului și al lunii", "tonul devine meditativ, aproape filozofic",
    ]
    private static let endings = [
        "De recitit.", "De discutat la curs.", "Legătură cu „{t}”.", "Frumos spus.", "Poate o notă de subsol?",
        "Am subliniat pentru eseu.", "Nu sunt de acord cu interpretarea clasică.", "Revin mâine.",
        "Exemplu bun pentru examen.", "Citat pentru prezentare.",
    ]
    static let colors = ["yellow", "yellow", "yellow", "green", "blue", "pink", "purple"]
    static let tags = ["iubire", "natură", "timp", "moarte", "de-revăzut", "examen", "citat", "favorite", "vis",
                       "istorie", "eseu", "întrebare"]

    /// One sentence of commentary, with words of the annotated line (`anchorWords`) or of the sample.
    func sentence(_ anchorWords: [String], using random: inout SeededGenerator) -> String {
        func word() -> String {
            let pool = anchorWords.filter { $0.count > 3 }
            return (pool.randomElement(using: &random) ?? words.randomElement(using: &random) ?? "dor").lowercased()
        }
        let title = titles.randomElement(using: &random) ?? "Luceafărul"
        var text = "\(random.pick(Self.openings)) \(random.pick(Self.middles))."
        if random.chance(0.4) { text += " " + random.pick(Self.endings) }
        return text.replacingOccurrences(of: "{w}", with: word()).replacingOccurrences(of: "{v}", with: word())
            .replacingOccurrences(of: "{t}", with: title)
    }

    /// A note as people write them: mostly one or two sentences, sometimes a paragraph, rarely a page.
    func note(about anchorWords: [String], using random: inout SeededGenerator) -> String {
        let roll = Double.random(in: 0..<1, using: &random)
        let sentences = roll < 0.5 ? 1 : roll < 0.85 ? 2 : roll < 0.98 ? Int.random(in: 3...6, using: &random)
            : Int.random(in: 12...25, using: &random)
        var parts: [String] = []
        for _ in 0..<sentences {
            if random.chance(0.15), let line = lines.randomElement(using: &random) {
                parts.append("„\(line)”")
            } else {
                parts.append(sentence(anchorWords, using: &random))
            }
        }
        return parts.joined(separator: " ")
    }

    /// A bookmark title: a few words.
    func bookmarkTitle(using random: inout SeededGenerator) -> String {
        let titles = ["unde am rămas", "de recitit", "pentru seminar", "strofa preferată", "aici mă opresc",
                      "început de capitol", "citit în tren"]
        return random.pick(titles)
    }

    // MARK: - Synthetic content

    /// A content source of `passages` passages in documents of 100: a fifth are real lines, the rest real
    /// lines recombined (the start of one with the end of another, now and then a word swapped in).
    func syntheticSource(passages: Int, using random: inout SeededGenerator) -> ContentSource {
        var documents: [ContentSource.Document] = []
        let perDocument = 100
        var made = 0
        while made < passages {
            let number = documents.count + 1
            let id = String(format: "sintetic-%05d", number)
            var items: [ContentSource.Passage] = []
            for index in 0..<min(perDocument, passages - made) {
                items.append(ContentSource.Passage(id: "\(id).\(index + 1)", text: syntheticLine(using: &random)))
            }
            made += items.count
            let title = Self.words(in: random.pick(lines)).prefix(3).joined(separator: " ")
            documents.append(ContentSource.Document(id: id, title: title.isEmpty ? id : title, passages: items))
        }
        return ContentSource(edition: "sintetic-\(passages)", language: "ro", title: "Poezii (sintetic)",
                             documents: documents)
    }

    private func syntheticLine(using random: inout SeededGenerator) -> String {
        let first = random.pick(lines)
        if random.chance(0.2) { return first }
        let a = first.split(separator: " ")
        let b = random.pick(lines).split(separator: " ")
        var line = Array(a.prefix(max(1, a.count / 2))) + Array(b.suffix(max(1, b.count - b.count / 2)))
        if random.chance(0.3), let word = words.randomElement(using: &random) {
            line.insert(Substring(word), at: Int.random(in: 0...line.count, using: &random))
        }
        return line.joined(separator: " ").precomposedStringWithCanonicalMapping
    }

    // MARK: - Queries

    /// `count` queries typed without diacritics: mostly single words, some pairs, phrases and prefixes.
    func queries(_ count: Int, using random: inout SeededGenerator) -> [String] {
        var queries: [String] = []
        while queries.count < count {
            let roll = queries.count % 10
            if roll < 6 {
                queries.append(Self.fold(random.pick(searchableWords)))
                continue
            }
            // Words as typed: folded, lowercased; a phrase is two neighbours, the others skip short words.
            let typed = Self.words(in: random.pick(lines)).map { Self.fold($0.lowercased()) }
            let longer = typed.filter { $0.count >= 3 && !$0.contains("-") }
            guard typed.count >= 2, longer.count >= 2 else { continue }
            switch roll {
            case 6, 7:
                let first = random.pick(longer)
                queries.append("\(first) \(longer.filter { $0 != first }.randomElement(using: &random) ?? first)")
            case 8:
                let start = Int.random(in: 0..<(typed.count - 1), using: &random)
                queries.append("\"\(typed[start]) \(typed[start + 1])\"")
            default:
                queries.append(String(random.pick(longer).prefix(4)) + "*")
            }
        }
        return queries
    }
}
