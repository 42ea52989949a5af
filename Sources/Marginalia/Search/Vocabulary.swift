/// The word forms of a content and their stems, recorded when the content is built (`vocabulary`): each word of
/// its passages as the full-text index sees it (folded: case and diacritics gone) beside its lemma when a lemma
/// table knows the word (`=` and the lemma: `gândurile` → `=gând`, which no stem of Snowball's can give, as `gând`
/// and `gânduri` stem apart), else beside the Snowball stem of the word as written (in today's orthography,
/// `RomanianStemmer`). A search then finds every form of a word typed in any of its forms, without a stemmer of
/// its own: the forms sharing a stem or a lemma with the typed one are read from the table. Only Romanian content
/// (`language` "ro") gets one, and only where libstemmer is built in.
///
/// The other forms of a lemma the content holds are recorded too, with `~` and the lemma (`avem` → `~avea` when
/// the content has `are` and `avut` but not `avem`): a query typed in such a form finds the lemma's forms in the
/// content, while a query never looks for them (they are in no passage). A form of two lemmas has both.
///
/// The lemma table: see `LemmaTable`.
struct Vocabulary {
    private let stemmer: RomanianStemmer?
    private var pairs: Set<Pair> = []
    /// The content's words, lowercase with ș ț, in today's orthography and as written (`cîți`, `câți`), for the
    /// lemma table.
    private var words: Set<String> = []
    /// The words recorded, as written.
    private var written: Set<String> = []

    private struct Pair: Hashable {
        var form: String
        var stem: String
    }

    init(language: String) {
        stemmer = language.lowercased().hasPrefix("ro") ? RomanianStemmer() : nil
    }

    /// Records the words of `text`.
    mutating func add(_ text: String) {
        guard let stemmer else { return }
        // A word met before has given its pairs already: most words of a text are.
        for word in Self.words(of: text) where written.insert(word).inserted {
            let stem = stemmer.stem(word)
            let form = Self.form(of: word)
            guard !form.isEmpty, !stem.isEmpty else { continue }
            pairs.insert(Pair(form: form, stem: stem))
            let modernized = RomanianStemmer.modernized(word)
            words.insert(modernized)
            words.insert(RomanianStemmer.commaSpelled(word))
            // The same word in today's orthography (cînd → când), as a reader may type it.
            let modern = Self.form(of: modernized)
            if modern != form { pairs.insert(Pair(form: modern, stem: stem)) }
        }
    }

    /// Adds the lemmas of the content's words from the lemma table at `path`, and the lemmas' other forms (only
    /// the entries holding a word of the content are kept, `LemmaTable`).
    mutating func addLemmas(from path: String) throws {
        guard stemmer != nil else { return }
        for entry in try LemmaTable.entries(at: path, holdingAnyOf: words) {
            let folded = entry.forms.map(LemmaTable.folded)
            var held: Set<String> = []
            for (form, fold) in zip(entry.forms, folded) where words.contains(form) {
                held.insert(fold)
                pairs.insert(Pair(form: fold, stem: "=" + entry.lemma))
            }
            for fold in folded where !held.contains(fold) { pairs.insert(Pair(form: fold, stem: "~" + entry.lemma)) }
        }
    }

    /// Writes the pairs recorded into the database being built.
    func write(to db: SQLiteDatabase) throws {
        // A form with a lemma is linked by its lemma's paradigm only: its Snowball stem would join words that
        // merely look alike (`mode` and `mod`, `opacă` and `opacitate`).
        let lemmatized = Set(pairs.filter { $0.stem.hasPrefix("=") }.map(\.form))
        let kept = pairs.filter { $0.stem.hasPrefix("=") || $0.stem.hasPrefix("~") || !lemmatized.contains($0.form) }
        // In the order of the table's key, which inserts fastest and is cheaper to sort by than String's Unicode
        // order: "BINARY - Compares string data using memcmp(), regardless of text encoding."
        // https://www.sqlite.org/datatype3.html#collating_sequences
        let sorted = kept.sorted { first, second in
            first.form == second.form
                ? first.stem.utf8.lexicographicallyPrecedes(second.stem.utf8)
                : first.form.utf8.lexicographicallyPrecedes(second.form.utf8)
        }
        for pair in sorted {
            try db.execute(sql: "INSERT INTO vocabulary (form, stem, folded_stem) VALUES (?, ?, ?)",
                           arguments: [pair.form, pair.stem, LemmaTable.folded(pair.stem)])
        }
    }

    /// The words of `text`: runs of letters and the marks inside them (a hyphen or an apostrophe ends one).
    static func words(of text: String) -> [String] {
        var words: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in SearchText.indexable(text).unicodeScalars {
            let properties = scalar.properties
            if properties.isAlphabetic || (!current.isEmpty && properties.generalCategory == .nonspacingMark) {
                current.append(scalar)
            } else if !current.isEmpty {
                words.append(String(current))
                current = String.UnicodeScalarView()
            }
        }
        if !current.isEmpty { words.append(String(current)) }
        return words
    }

    /// A word as the full-text index and a query see it: lowercase, without diacritics.
    static func form(of word: String) -> String {
        FoldedText(word, level: .letters).string
    }
}
