/// A lemma table read for the words of one content: `samples/ro-lemmas.tsv.gz` (made by `scripts/ro_lemmas.py`
/// from the Romanian Hunspell dictionary and simplemma's full-form lexicon) or any table of the same form: gzip
/// text, one entry a line, the lemma then its other forms, separated by tabs, lowercase NFC with ș ț.
///
/// The table is 20 MB of text once inflated and a content holds a few thousand of its 1.7 million forms, so it is
/// read as a stream and each form is first checked by a 64-bit fingerprint of its bytes (FNV-1a): only the lines
/// holding a word of the content are decoded into strings.
enum LemmaTable {
    /// One entry: a lemma and its forms, the lemma first.
    struct Entry: Equatable {
        var lemma: String { forms[0] }
        var forms: [String]
    }

    /// The entries of the table at `path` that hold one of `words` (as the table writes them) among their forms.
    /// - Throws: a file-system error or a `GzipError` for a file that is not gzip or is cut short.
    static func entries(at path: String, holdingAnyOf words: Set<String>) throws -> [Entry] {
        let fingerprints = Set(words.map { fingerprint(of: $0.utf8) })
        let file = try FileSource(path: path)
        defer { try? file.close() }
        let lines = LineReader(source: try GzipReader(source: file), maxLineBytes: 1 << 20)
        var entries: [Entry] = []
        while let line = try lines.next() {
            let bytes = line.bytes
            let candidate = bytes.withUnsafeBufferPointer { buffer -> Bool in
                var hash = FNV1a()
                for byte in buffer {
                    if byte == 0x09 {
                        if fingerprints.contains(hash.value) { return true }
                        hash = FNV1a()
                    } else {
                        hash.feed(byte)
                    }
                }
                return fingerprints.contains(hash.value)
            }
            guard candidate else { continue }
            let forms = bytes.split(separator: 0x09).map { String(decoding: $0, as: UTF8.self) }
            if !forms.isEmpty, forms.contains(where: words.contains) { entries.append(Entry(forms: forms)) }
        }
        return entries
    }

    private static func fingerprint<Bytes: Sequence>(of bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hash = FNV1a()
        hash.feed(bytes)
        return hash.value
    }

    /// A form of the table (or a stem) as the full-text index sees it (`Vocabulary.form(of:)`), quickly for the
    /// characters a table holds (ASCII other than capitals, ă â î ș ț) and by `FoldedText` for any other.
    static func folded(_ form: String) -> String {
        if form.utf8.allSatisfy({ $0 < 0x80 && !(0x41...0x5A).contains($0) }) { return form }
        var scalars = String.UnicodeScalarView()
        for scalar in form.unicodeScalars {
            switch scalar {
            case "\u{21}"..."\u{40}", "\u{5B}"..."\u{7E}": scalars.append(scalar)
            case "ă", "â": scalars.append("a")
            case "î": scalars.append("i")
            case "ș": scalars.append("s")
            case "ț": scalars.append("t")
            default: return Vocabulary.form(of: form)
            }
        }
        return String(scalars)
    }
}
