#if canImport(CStemmer)
import CStemmer
#endif

/// Snowball's Romanian stemmer (https://snowballstem.org/algorithms/romanian/stemmer.html) through the system's
/// libstemmer, on words written as today's orthography writes them: the cedilla letters ş and ţ as the comma letters
/// ș and ț, and î inside a word (the orthography before 1993, `cînd`) as â (`când`). Not shared between threads.
/// Where libstemmer is not built in (Apple's systems), there is none: content built there records no word forms.
final class RomanianStemmer {
    #if canImport(CStemmer)
    private let stemmer: OpaquePointer
    #endif

    /// nil when the stemmer is not available.
    init?() {
        #if canImport(CStemmer)
        guard let stemmer = sb_stemmer_new("romanian", "UTF_8") else { return nil }
        self.stemmer = stemmer
        #else
        return nil
        #endif
    }

    deinit {
        #if canImport(CStemmer)
        sb_stemmer_delete(stemmer)
        #endif
    }

    /// The stem of one word (lowercase, today's orthography first).
    func stem(_ word: String) -> String {
        #if canImport(CStemmer)
        let bytes = Array(Self.modernized(word).utf8)
        guard let result = sb_stemmer_stem(stemmer, bytes, Int32(bytes.count)) else { return Self.modernized(word) }
        let length = Int(sb_stemmer_length(stemmer))
        return String(decoding: UnsafeBufferPointer(start: result, count: length), as: UTF8.self)
        #else
        return Self.modernized(word)
        #endif
    }

    /// `word` lowercased, with the comma letters ș ț for the cedilla ones, its î kept (`cîţi` → `cîți`).
    static func commaSpelled(_ word: String) -> String {
        respelled(word, modernizingÎ: false)
    }

    /// `word` lowercased, in today's orthography: ş ţ → ș ț, and î between two letters of the word → â.
    static func modernized(_ word: String) -> String {
        respelled(word, modernizingÎ: true)
    }

    /// `word` lowercased with ş ţ → ș ț, and with `modernizingÎ`, î between two letters of the word → â.
    private static func respelled(_ word: String, modernizingÎ: Bool) -> String {
        var scalars = Array(word.lowercased().precomposedStringWithCanonicalMapping.unicodeScalars)
        for index in scalars.indices {
            switch scalars[index] {
            case "ş": scalars[index] = "ș"
            case "ţ": scalars[index] = "ț"
            case "î" where modernizingÎ && index > 0 && index < scalars.count - 1: scalars[index] = "â"
            default: break
            }
        }
        return String(String.UnicodeScalarView(scalars))
    }
}
