import Foundation
import MarginaliaTestSupport
import Testing
@testable import Marginalia

/// Full paradigms from the lemma table (`scripts/ro_lemmas.py`: Hunspell's regular paradigms and simplemma's
/// full-form lexicon): irregular and suppletive verbs, participles, nouns made from adverbs, the old orthography,
/// and forms the content does not hold, typed without diacritics.
@Suite struct SearchParadigmTests {
    /// Passages, each with one word whose lemma a test asks for (and none of another's).
    static let source = makeSource(edition: "paradigms-1", [("p", [
        ("p.1", "Ei au o casă mare."),
        ("p.2", "Cine are minte tace."),
        ("p.3", "Noi am avut un vis frumos."),
        ("p.4", "El deschide ușa încet."),
        ("p.5", "Ei sînt aici de mult."),
        ("p.6", "Ele sunt departe."),
        ("p.7", "Câți ani trecură."),
        ("p.8", "Cîţi copii plâng."),
        ("p.9", "Binele învinge."),
        ("p.10", "Totul merge bine."),
        ("p.11", "Îl cunosc de mult."),
        ("p.12", "Mama îl cheamă acasă."),
        ("p.13", "Pune sare în mâncare."),
        ("p.14", "Calul sări peste gard."),
    ])])

    /// The content of `source`, built once per test process with the bundled lemma table, copied into `directory`
    /// and attached to a new store there.
    static func store(in directory: TemporaryDirectory) throws -> AnnotationStore {
        let built = try BuiltOnce.shared.value(for: "content-paradigms") { shared in
            let built = "\(shared)/paradigms.db"
            try ContentBuilder.build(source, output: built, lemmas: Samples.path("ro-lemmas.tsv.gz"))
            return built
        }
        let path = directory.path("paradigms.db")
        try FileManager.default.copyItem(atPath: built, toPath: path)
        let store = try makeStore(directory)
        try store.attachContent(path: path)
        return store
    }

    static func found(_ query: String, in store: AnnotationStore) throws -> [String] {
        try store.searchPassages(query, limit: 100).hits.map(\.passage)
    }

    @Test func everyFormOfAnIrregularVerbIsFoundByAFormTheTextDoesNotHold() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(in: directory)
        // "avem" is in no passage: its lemma "avea" is, as "au", "are", "am avut".
        #expect(Set(try Self.found("avem", in: store)) == ["p.1", "p.2", "p.3"])
        // Typed as a form the text holds, that form's passage comes first.
        let are = try Self.found("are", in: store)
        #expect(are.first == "p.2" && Set(are) == ["p.1", "p.2", "p.3"])
    }

    @Test func participlesOldSpellingsAndNounsFromAdverbsFindTheirLemma() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(in: directory)
        #expect(try Self.found("deschis", in: store) == ["p.4"])
        #expect(try Self.found("cunoscut", in: store) == ["p.11"])
        #expect(try Self.found("chemat", in: store) == ["p.12"])
        // "sînt" (before 1993) and "sunt" are one verb, typed either way.
        #expect(Set(try Self.found("sint", in: store)) == ["p.5", "p.6"])
        #expect(Set(try Self.found("suntem", in: store)) == ["p.5", "p.6"])
        // "cîţi" (î inside the word, cedilla ţ) and "câți".
        #expect(Set(try Self.found("citi", in: store)) == ["p.7", "p.8"])
        #expect(Set(try Self.found("cati", in: store)) == ["p.7", "p.8"])
        #expect(Set(try Self.found("binelui", in: store)) == ["p.9", "p.10"])
    }

    @Test func aFormOfTwoLemmasFindsBothAfterTheExactForm() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(in: directory)
        // "sare" is the noun (salt) and a form of "sări" (to jump): the passage with "sare" first, then "sări".
        #expect(try Self.found("sare", in: store) == ["p.13", "p.14"])
        // "sărurile" is the noun's only: not the verb's passage.
        #expect(try Self.found("sarurile", in: store) == ["p.13"])
        // "sărind" is the verb's only, whose forms are "sări" and "sare" (it jumps) too.
        #expect(Set(try Self.found("sarind", in: store)) == ["p.13", "p.14"])
        // "sarea" is both, the noun's "sarea" and the verb's "sărea".
        #expect(Set(try Self.found("sarea", in: store)) == ["p.13", "p.14"])
    }

    @Test func notesAndNotesAsOfATimeUseTheSameForms() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(in: directory)
        let kept = try store.createAnnotation(.note, at: AnchorRequest(passage: "p.1", start: 0, end: 2),
                                              note: "Cine are carte are parte")
        let other = try store.createAnnotation(.note, at: AnchorRequest(passage: "p.4", start: 0, end: 2),
                                               note: "Ușa se deschide greu")
        let forms = try store.engine.read { try $0.search.forms(of: "avem") }
        #expect(forms == ["am", "are", "au", "avut"])
        #expect(try store.searchNotes("avem").map(\.id) == [kept.id])
        #expect(try store.searchNotes("deschis").map(\.id) == [other.id])
        let now = Timestamp.nowMilliseconds() + 1
        #expect(try store.searchNotes("avem", asOf: now).map(\.id) == [kept.id])
        #expect(try store.searchNotes("deschis", asOf: now).map(\.id) == [other.id])
    }

    @Test func theTablesQuickFoldingIsTheIndexs() throws {
        let words = ["avea", "câți", "cîți", "sînt", "ștergeți", "țară", "ţară", "şi", "Ăla", "=gând", "~avea", "naïve",
                     "codru", "x1-y", "fată", "mâine", "îți"]
        for word in words {
            #expect(LemmaTable.folded(word) == Vocabulary.form(of: word), "\(word)")
        }
    }
}
