import Foundation
import Testing
@testable import Marginalia
import MarginaliaTestSupport

/// `CanonicalFieldsReader`, the fast reader of the log's fields, gives what the general reader (`JSONParser` then
/// `ChangeFields(json:)`) gives whenever it gives anything, and reads every canonical text itself.
@Suite struct CanonicalFieldsReaderTests {
    // MARK: - The two readers

    /// The fast reader's fields of `bytes`.
    static func fast(_ bytes: [UInt8]) -> ChangeFields? {
        bytes.withUnsafeBytes { CanonicalFieldsReader.read($0) }
    }

    /// The general reader's fields of `bytes` (nil: it refuses them).
    static func general(_ bytes: [UInt8]) -> ChangeFields? {
        try? ChangeFields(json: JSONParser.parse(bytes))
    }

    /// Whether `left` and `right` hold the same fields byte for byte (String's `==` is canonical equivalence).
    static func same(_ left: ChangeFields, _ right: ChangeFields) -> Bool {
        left == right && (try? left.jsonText()).map(\.utf8).map(Array.init)
            == (try? right.jsonText()).map(\.utf8).map(Array.init)
            && [left.note, left.color, left.name, left.anchor?.quote, left.anchor?.document].map { $0.map(Array.init) }
            == [right.note, right.color, right.name, right.anchor?.quote, right.anchor?.document].map {
                $0.map(Array.init)
            }
    }

    /// Checks that where the fast reader gives fields, the general reader gives the same.
    static func expectAgreement(_ bytes: [UInt8], _ comment: @autoclosure () -> String = "",
                                sourceLocation: SourceLocation = #_sourceLocation) {
        guard let fast = fast(bytes) else { return }
        let general = general(bytes)
        let text = String(decoding: bytes, as: UTF8.self).debugDescription
        let generalText = general.map { "\($0)" } ?? "refuses"
        #expect(general.map { same(fast, $0) } == true,
                "\(comment()) \(text): fast \(fast), general \(generalText)", sourceLocation: sourceLocation)
    }

    // MARK: - Canonical text

    @Test func everyCanonicalTextIsReadFastAndAsTheGeneralReaderReadsIt() throws {
        let seed = TestSeed.printed(for: "CanonicalFieldsReaderTests canonical")
        var random = SeededGenerator(seed: seed)
        for round in 0..<3000 {
            let fields = Self.randomFields(using: &random)
            let text = Array(try fields.jsonText().utf8)
            let fast = try #require(Self.fast(text),
                                    "seed \(seed), round \(round): \(String(decoding: text, as: UTF8.self))")
            let general = try #require(Self.general(text))
            #expect(Self.same(fast, general), "seed \(seed), round \(round)")
            #expect(Self.same(fast, fields), "seed \(seed), round \(round)")
        }
    }

    @Test func escapesAreReadAsTheGeneralReaderReadsThem() throws {
        let texts = [
            #"{"note":"a\"b\\c\/d\be\ff\ng\rh\ti"}"#,
            #"{"note":"\u00e9\u00C9 \u0103 \u2028 \uD83D\uDE00 \ud83d\ude00 x"}"#,
            #"{"note":"\u0001\u001f\u007f"}"#,
            #"{"color":"\u0072ed","tags":{"\u00e9t\u00e9":true,"b\"c":false}}"#,
            #"{"name":"Ana\u2019s phone"}"#,
            #"{"note":"ăîșțâ ĂÎȘȚÂ 😀 𝄞 한국어 ﬁ"}"#,
        ]
        for text in texts {
            let bytes = Array(text.utf8)
            let fast = try #require(Self.fast(bytes), "\(text)")
            let general = try #require(Self.general(bytes), "\(text)")
            #expect(Self.same(fast, general), "\(text)")
        }
        let emoji = try #require(Self.fast(Array(#"{"note":"\uD83D\uDE00"}"#.utf8)))
        #expect(emoji.note.map { Array($0.utf8) } == [0xF0, 0x9F, 0x98, 0x80])
    }

    // MARK: - Other text

    @Test func textTheFastReaderLeavesToTheGeneralOne() {
        let anchor = #""document":"d","start":{"passage":"p","offset":1},"end":{"passage":"p","offset":2},"#
            + #""quote":"q","prefix":"","suffix":"","edition":"e""#
        let texts: [String] = [
            "", "{", "}", "[]", "null", #"{"note":"a"} "#, #" {"note":"a"}"#, #"{ "note":"a"}"#, #"{"note" :"a"}"#,
            #"{"note":"a",}"#, #"{"note":"a""#, #"{"note":"a"}x"#, #"{"note":"a"}{}"#,
            #"{"color":"red","note":"a"}"#, #"{"note":"a","note":"b"}"#, #"{"no\u0074e":"a"}"#, #"{"other":1}"#,
            #"{"note":"\ud83d"}"#, #"{"note":"\ude00"}"#, #"{"note":"\ud83d\u0041"}"#, #"{"note":"\ud83dx"}"#,
            #"{"note":"\u12"}"#, #"{"note":"\u12G4"}"#, #"{"note":"\x"}"#, #"{"note":"\"#, #"{"note":"\u0000"}"#,
            "{\"note\":\"a\tb\"}", "{\"note\":\"a\nb\"}", "{\"note\":\"\u{7F}\"}",
            #"{"passage":"p","offset":01}"#, #"{"passage":"p","offset":-1}"#, #"{"passage":"p","offset":1.0}"#,
            #"{"passage":"p","offset":1e2}"#, #"{"passage":"p","offset":99999999999999999999}"#,
            #"{"passage":"p","offset":2147483648}"#, #"{"passage":"p","offset":"1"}"#, #"{"passage":"p"}"#,
            #"{"offset":1}"#, #"{"passage":" p","offset":1}"#, #"{"passage":"","offset":0}"#,
            #"{"tags":{}}"#, #"{"tags":{"a":true,"a":false}}"#, #"{"tags":{"a":1}}"#, #"{"tags":{"":true}}"#,
            #"{"tags":{" a":true}}"#, "{\"tags\":{\"e\u{301}\":true}}",
            "{\"tags\":{\"\u{e9}\":true,\"e\u{301}\":true}}",
            #"{"deleted":TRUE}"#, #"{"deleted":1}"#, #"{"deleted":tru}"#, #"{"kind":"comment"}"#, #"{"kind":1}"#,
            #"{"revertTo":"a b"}"#, #"{"name":""}"#, #"{"color":" red"}"#,
            "{" + anchor + "}", "{" + anchor.replacingOccurrences(of: #","edition":"e""#, with: "") + "}",
            "{" + anchor.replacingOccurrences(of: #""offset":2"#, with: #""offset":0"#) + "}",
            "{" + anchor.replacingOccurrences(of: #"{"passage":"p","offset":1}"#, with: #"{"offset":1,"passage":"p"}"#)
                + "}",
            "{" + anchor.replacingOccurrences(of: #""quote":"q""#, with: #""quote":"q\u0000""#) + "}",
        ]
        for text in texts { Self.expectAgreement(Array(text.utf8), "text") }
        // Canonical text the fast reader does read, and text it must leave alone.
        #expect(Self.fast(Array(("{" + anchor + "}").utf8))?.anchor?.quote == "q")
        for text in [#"{"note":"a"} "#, #"{"note":"a","note":"b"}"#, #"{"note":"\ud83d"}"#,
                     #"{"passage":"p","offset":01}"#, #"{"tags":{}}"#, #"{"tags":{"a":true,"a":false}}"#,
                     #"{"offset":1}"#, "{\"tags\":{\"e\u{301}\":true}}", #"{"note":"\u0000"}"#] {
            #expect(Self.fast(Array(text.utf8)) == nil, "\(text)")
        }
    }

    @Test func bytesThatAreNotUTF8AreLeftToTheGeneralReader() {
        let prefix = Array(#"{"note":""#.utf8)
        let suffix = Array(#""}"#.utf8)
        let hostile: [[UInt8]] = [
            [0xFF], [0xC3], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0xF0, 0x9F, 0x98], [0x80], [0xEF, 0xBB, 0xBF, 0xFE],
        ]
        for bytes in hostile {
            let text = prefix + bytes + suffix
            #expect(Self.fast(text) == nil, "\(bytes)")
            Self.expectAgreement(text, "\(bytes)")
        }
        #expect(Self.fast([0xEF, 0xBB, 0xBF] + Array(#"{"note":"a"}"#.utf8)) == nil)
    }

    @Test func mutatedTextIsNeverReadOtherwiseThanByTheGeneralReader() throws {
        let seed = TestSeed.printed(for: "CanonicalFieldsReaderTests mutations")
        var random = SeededGenerator(seed: seed)
        let pieces: [[UInt8]] = [
            Array(#"\"#.utf8), Array(#"""#.utf8), Array("u".utf8), Array("{".utf8), Array("}".utf8), Array(",".utf8),
            Array(":".utf8), Array("0".utf8), Array("1".utf8), Array(" ".utf8), [0x0A], [0x00], [0xC3, 0xA9], [0xC3],
            [0xED, 0xA0, 0x80], [0xFF], Array(#"\u00e9"#.utf8), Array(#"\ud83d"#.utf8), Array(#"\ude00"#.utf8),
            Array("true".utf8), Array("e\u{301}".utf8),
        ]
        for round in 0..<3000 {
            var text = Array(try Self.randomFields(using: &random).jsonText().utf8)
            for _ in 0..<Int.random(in: 1...3, using: &random) where !text.isEmpty {
                let at = Int.random(in: 0..<text.count, using: &random)
                let piece = pieces[Int.random(in: 0..<pieces.count, using: &random)]
                switch Int.random(in: 0..<3, using: &random) {
                case 0: text.insert(contentsOf: piece, at: at)
                case 1: text.remove(at: at)
                default: text.replaceSubrange(at..<min(text.count, at + piece.count), with: piece)
                }
            }
            Self.expectAgreement(text, "seed \(seed), round \(round)")
        }
    }

    // MARK: - A change read from its row

    @Test func aChangeReadFromItsRowIsTheOneItsStoredTextGives() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        let seed = TestSeed.printed(for: "CanonicalFieldsReaderTests rows")
        var random = SeededGenerator(seed: seed)
        var texts = try (0..<200).map { _ in try Self.randomFields(using: &random).jsonText() }
        texts += [#"{"note": "a"}"#, #"{"note":"\u00e9"}"#, #"{"note":1}"#, "{\"note\":\"\u{1}\"}",
                  #"{"note":"\ud83d"}"#]
        /// A change and its stored text (byte for byte), or the error that refuses it.
        func outcome(_ read: () throws -> Change) -> (change: Change?, text: [String]) {
            do {
                let change = try read()
                return (change, [change.changeID] + change.storedText(fieldsText: try change.fields.jsonText()))
            } catch {
                return (nil, ["\(error)"])
            }
        }
        for (index, text) in texts.enumerated() {
            let wall: Int64? = index.isMultiple(of: 2) ? nil : 1_795_954_481_123
            let columns = ["c\(index)", "001795954481123-00000", "dev", "annotation", "a1", "edit", text]
            let fromRow = try db.fetchOne(
                sql: "SELECT ?, ?, ?, ?, ?, ?, ?, ?",
                arguments: StatementArguments(
                    columns.map(DatabaseValue.text) + [wall.map(DatabaseValue.integer) ?? .null])
            ) { row in outcome { try Change(row: row) } }
            let fromText = outcome { try Change(stored: columns + [Change.wallText(wall)]) }
            #expect(fromRow?.change == fromText.change && fromRow?.text == fromText.text, "seed \(seed): \(text)")
        }
    }

    // MARK: - Random fields

    /// Fields as a change may hold them, their text drawn from pieces that need escapes or are not ASCII.
    static func randomFields(using random: inout SeededGenerator) -> ChangeFields {
        let pieces = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\r", "\u{1}", "\u{1F}", "\u{7F}", "\u{80}",
                      "\u{9F}", "ă", "ș", "é", "e\u{301}", "😀", "𝄞", "\u{2028}", "\u{FEFF}", "한", "ﬁ", "<", "&"]
        func text(_ range: ClosedRange<Int>) -> String {
            (0..<Int.random(in: range, using: &random)).map { _ in
                pieces[Int.random(in: 0..<pieces.count, using: &random)]
            }.joined()
        }
        func label() -> String {
            ["red", "to-read", "ăla", "poezie", "tag\(Int.random(in: 0...9, using: &random))", "é"][
                Int.random(in: 0...5, using: &random)]
        }
        func position() -> TextPosition {
            TextPosition(passage: "p\(Int.random(in: 0...99, using: &random))",
                         offset: Int.random(in: 0...(Bool.random(using: &random) ? 9 : Int(Int32.max)), using: &random))
        }
        var fields = ChangeFields()
        if Bool.random(using: &random) {
            fields.kind = [AnnotationKind.highlight, .note, .bookmark][Int.random(in: 0...2, using: &random)]
        }
        if Bool.random(using: &random) {
            let start = position()
            var end = position()
            if end.passage == start.passage { end.offset = max(end.offset, start.offset) }
            fields.anchor = Anchor(document: "doc-\(Int.random(in: 0...99, using: &random))", start: start, end: end,
                                   quote: text(0...12), prefix: text(0...4), suffix: text(0...4),
                                   edition: "eminescu-2026.1")
        }
        if Bool.random(using: &random) { fields.note = text(0...20) }
        if Int.random(in: 0...3, using: &random) == 0 { fields.color = Bool.random(using: &random) ? "" : label() }
        if Bool.random(using: &random) {
            for _ in 0..<Int.random(in: 1...3, using: &random) { fields.tags[label()] = Bool.random(using: &random) }
        }
        if Int.random(in: 0...3, using: &random) == 0 { fields.deleted = Bool.random(using: &random) }
        if Int.random(in: 0...3, using: &random) == 0 { fields.position = position() }
        if Int.random(in: 0...5, using: &random) == 0 {
            fields.revertTo = "change-\(Int.random(in: 0...9, using: &random))"
        }
        if Int.random(in: 0...5, using: &random) == 0 { fields.name = "Ana's " + label() }
        return fields
    }
}
