import Testing
@testable import Marginalia

@Suite struct JSONParserRefusalTests {
    /// One input the parser must refuse, with the exact error expected.
    struct Refusal: Sendable, CustomTestStringConvertible {
        let input: [UInt8]
        let offset: Int
        let reason: String

        init(_ text: String, _ offset: Int, _ reason: String) {
            self.input = Array(text.utf8)
            self.offset = offset
            self.reason = reason
        }

        init(bytes: [UInt8], _ offset: Int, _ reason: String) {
            self.input = bytes
            self.offset = offset
            self.reason = reason
        }

        var testDescription: String {
            String(decoding: input.prefix(40), as: UTF8.self).debugDescription + " → \(offset): \(reason)"
        }
    }

    /// The error parsing `input` throws, or `nil` if it is accepted.
    func parseError(_ input: [UInt8], limits: JSONParser.Limits = JSONParser.Limits()) -> JSONParseError? {
        do {
            _ = try JSONParser.parse(input, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    func parseError(_ text: String, limits: JSONParser.Limits = JSONParser.Limits()) -> JSONParseError? {
        parseError(Array(text.utf8), limits: limits)
    }

    static let quote: UInt8 = 0x22

    static let structure: [Refusal] = [
        Refusal("", 0, "empty input"),
        Refusal("   ", 3, "unexpected end of input"),
        Refusal(bytes: [0xEF, 0xBB, 0xBF] + Array("{}".utf8), 0, "byte order mark is not allowed"),
        Refusal("{} x", 3, "trailing characters after the value"),
        Refusal("1 2", 2, "trailing characters after the value"),
        Refusal("[] []", 3, "trailing characters after the value"),
        Refusal("nullx", 4, "trailing characters after the value"),
        Refusal("x", 0, "unexpected character 'x'"),
        Refusal("[1,]", 3, "unexpected character ']'"),
        Refusal("{,}", 1, "unexpected character ','"),
        Refusal(#"{"a" 1}"#, 5, "unexpected character '1'"),
        Refusal(#"{"a":1,}"#, 7, "unexpected character '}'"),
        Refusal("[1 2]", 3, "unexpected character '2'"),
        Refusal(#"{"a":1]"#, 6, "unexpected character ']'"),
        Refusal("[1}", 2, "unexpected character '}'"),
        Refusal("{'a':1}", 1, "unexpected character '''"),
        Refusal("{1:1}", 1, "unexpected character '1'"),
        Refusal("[", 1, "unexpected end of input"),
        Refusal(#"{"a":"#, 5, "unexpected end of input"),
        Refusal(#"{"a""#, 4, "unexpected end of input"),
        Refusal("[1,", 3, "unexpected end of input"),
        Refusal("tru", 3, "unexpected end of input"),
        Refusal("trux", 3, "unexpected character 'x'"),
        Refusal("nul", 3, "unexpected end of input"),
        Refusal("True", 0, "unexpected character 'T'"),
        Refusal("[\u{1}]", 1, "unexpected byte 0x01"),
        Refusal("[\u{0C}]", 1, "unexpected byte 0x0C"),
        Refusal(bytes: [0xC3, 0xA9], 0, "unexpected byte 0xC3"),
    ]

    static let numbers: [Refusal] = [
        Refusal("NaN", 0, "unexpected character 'N'"),
        Refusal("Infinity", 0, "unexpected character 'I'"),
        Refusal("-Infinity", 1, "unexpected character 'I'"),
        Refusal("[nan]", 2, "unexpected character 'a'"),
        Refusal("+1", 0, "unexpected character '+'"),
        Refusal(".5", 0, "unexpected character '.'"),
        Refusal("-", 1, "unexpected end of input"),
        Refusal("-a", 1, "unexpected character 'a'"),
        Refusal("1.", 2, "unexpected end of input"),
        Refusal("1.e5", 2, "unexpected character 'e'"),
        Refusal("[1.]", 3, "unexpected character ']'"),
        Refusal("1e", 2, "unexpected end of input"),
        Refusal("1e+", 3, "unexpected end of input"),
        Refusal("1e+x", 3, "unexpected character 'x'"),
        Refusal("0x10", 1, "trailing characters after the value"),
        Refusal("01", 0, "leading zero in number"),
        Refusal("-01", 1, "leading zero in number"),
        Refusal("[00]", 1, "leading zero in number"),
        Refusal("1e400", 0, "number out of range"),
        Refusal("[-1e400]", 1, "number out of range"),
        Refusal("1.5e999999999999999999999", 0, "number out of range"),
        Refusal("1" + String(repeating: "0", count: 400), 0, "number out of range"),
    ]

    static let strings: [Refusal] = [
        Refusal(#""abc"#, 0, "unterminated string"),
        Refusal(#"["abc"#, 1, "unterminated string"),
        Refusal(#""ab\"#, 0, "unterminated string"),
        Refusal(#""\u12"#, 0, "unterminated string"),
        Refusal("\"a\nb\"", 2, "unescaped control character 0x0A in string"),
        Refusal("\"\t\"", 1, "unescaped control character 0x09 in string"),
        Refusal("\"\u{0}\"", 1, "unescaped control character 0x00 in string"),
        Refusal("\"\\n\u{1F}\"", 3, "unescaped control character 0x1F in string"),
        Refusal(#""\x""#, 1, #"invalid escape '\x'"#),
        Refusal(#""ab\'""#, 3, #"invalid escape '\''"#),
        Refusal("\"\\\u{1}\"", 1, "invalid escape 0x01"),
        Refusal(#""\u12G4""#, 1, #"invalid \u escape"#),
        Refusal(#""\U0041""#, 1, #"invalid escape '\U'"#),
        Refusal(#""\ud800""#, 1, #"lone surrogate \ud800"#),
        Refusal(#""\uD800x""#, 1, #"lone surrogate \ud800"#),
        Refusal(#""\udc00""#, 1, #"lone surrogate \udc00"#),
        Refusal(#""\udc00\ud800""#, 1, #"lone surrogate \udc00"#),
        Refusal(#""\ud800\u0041""#, 1, #"lone surrogate \ud800"#),
        Refusal(#""\ud800\ud800""#, 1, #"lone surrogate \ud800"#),
        Refusal(#""a\udbff\n""#, 2, #"lone surrogate \udbff"#),
        Refusal(#""\ud800\uZZZZ""#, 7, #"invalid \u escape"#),
        Refusal(#"{"\udfff":1}"#, 2, #"lone surrogate \udfff"#),
    ]

    static let utf8: [Refusal] = [
        Refusal(bytes: [quote, 0xC0, 0x80, quote], 1, "invalid UTF-8 byte 0xC0"),
        Refusal(bytes: [quote, 0xC1, 0xBF, quote], 1, "invalid UTF-8 byte 0xC1"),
        Refusal(bytes: [quote, 0x80, quote], 1, "invalid UTF-8 byte 0x80"),
        Refusal(bytes: [quote, 0xBF, quote], 1, "invalid UTF-8 byte 0xBF"),
        Refusal(bytes: [quote, 0xF5, 0x80, 0x80, 0x80, quote], 1, "invalid UTF-8 byte 0xF5"),
        Refusal(bytes: [quote, 0xFF, quote], 1, "invalid UTF-8 byte 0xFF"),
        Refusal(bytes: [quote, 0xE0, 0x80, 0xAF, quote], 1, "overlong UTF-8 sequence starting with 0xE0"),
        Refusal(bytes: [quote, 0xE0, 0x9F, 0xBF, quote], 1, "overlong UTF-8 sequence starting with 0xE0"),
        Refusal(bytes: [quote, 0xF0, 0x8F, 0xBF, 0xBF, quote], 1, "overlong UTF-8 sequence starting with 0xF0"),
        Refusal(bytes: [quote, 0xED, 0xA0, 0x80, quote], 1, "UTF-8 encoded surrogate starting with 0xED"),
        Refusal(bytes: [quote, 0xED, 0xBF, 0xBF, quote], 1, "UTF-8 encoded surrogate starting with 0xED"),
        Refusal(bytes: [quote, 0xF4, 0x90, 0x80, 0x80, quote], 1, "UTF-8 sequence above U+10FFFF starting with 0xF4"),
        Refusal(bytes: [quote, 0xE2, 0x82, quote], 1, "truncated UTF-8 sequence starting with 0xE2"),
        Refusal(bytes: [quote, 0x61, 0xC3, 0x41, quote], 2, "truncated UTF-8 sequence starting with 0xC3"),
        Refusal(bytes: [quote, 0xF0, 0x9F, 0x98], 1, "truncated UTF-8 sequence starting with 0xF0"),
        Refusal(bytes: [quote, 0xC3], 1, "truncated UTF-8 sequence starting with 0xC3"),
        Refusal(bytes: Array(#""\n"#.utf8) + [0xC0, quote], 3, "invalid UTF-8 byte 0xC0"),
        Refusal(bytes: Array(#"{""#.utf8) + [0xED, 0xA0, 0x80] + Array(#"":1}"#.utf8), 2,
                "UTF-8 encoded surrogate starting with 0xED"),
    ]

    static let duplicates: [Refusal] = [
        Refusal(#"{"note":1,"note":2}"#, 10, #"duplicate key "note""#),
        Refusal(#"{"a":1,"\u0061":2}"#, 7, #"duplicate key "a""#),
        Refusal(#"{"\u0061":1,"a":2}"#, 12, #"duplicate key "a""#),
        Refusal(#"{"a":{"a":1},"b":{"b":1,"b":2}}"#, 24, #"duplicate key "b""#),
        Refusal(#"{"é":1,"x":2,"\u00e9":3}"#, 14, #"duplicate key "é""#),
        Refusal(#"{"a\"b":1,"a\u0022b":2}"#, 10, #"duplicate key "a\"b""#),
        Refusal(#"{"\n":1,"\n":2}"#, 8, #"duplicate key "\u000a""#),
        Refusal(#"{"":1,"":2}"#, 6, #"duplicate key """#),
    ]

    @Test(arguments: structure + numbers + strings + utf8 + duplicates)
    func refuses(_ refusal: Refusal) {
        #expect(parseError(refusal.input) == JSONParseError(offset: refusal.offset, reason: refusal.reason))
    }

    @Test func errorDescriptionNamesByteAndReason() {
        let error = JSONParseError(offset: 10, reason: #"duplicate key "note""#)
        #expect(error.description == #"byte 10: duplicate key "note""#)
    }

    @Test func findsTheFirstSpecialByteAtEveryPositionOfALongString() {
        // The scan reads eight bytes at a time; each position within and across words must be exact.
        for position in 0..<40 {
            for (special, reason) in [(UInt8(0x01), "unescaped control character 0x01 in string"),
                                      (UInt8(0xC0), "invalid UTF-8 byte 0xC0")] {
                var input: [UInt8] = [Self.quote] + Array(repeating: UInt8(ascii: "a"), count: 48) + [Self.quote]
                input[1 + position] = special
                let error = parseError(input)
                #expect(error == JSONParseError(offset: 1 + position, reason: reason), "position \(position)")
            }
            var early: [UInt8] = [Self.quote] + Array(repeating: UInt8(ascii: "b"), count: 48) + [Self.quote]
            early[1 + position] = Self.quote
            let trailing = JSONParseError(offset: 2 + position, reason: "trailing characters after the value")
            #expect(parseError(early) == trailing, "position \(position)")
        }
    }

    @Test func refusesADuplicateInALargeObject() {
        var text = "{"
        for number in 0..<100 {
            text += "\"key\(number)\":\(number),"
        }
        let offset = text.utf8.count
        text += #""key50":0}"#
        #expect(parseError(text) == JSONParseError(offset: offset, reason: #"duplicate key "key50""#))
    }

    @Test func shortensALongDuplicateKeyInTheMessage() {
        let key = String(repeating: "k", count: 100)
        let text = "{\"\(key)\":1,\"\(key)\":2}"
        let shown = "\"" + String(repeating: "k", count: 64) + "…\""
        #expect(parseError(text) == JSONParseError(offset: 106, reason: "duplicate key " + shown))
    }

    @Test func acceptsKeysThatAreOnlyCanonicallyEquivalent() throws {
        // "é" precomposed and "e" + combining acute are equal as Swift Strings, but different JSON keys.
        let value = try JSONParser.parse(#"{"é":1,"e\u0301":2}"#)
        #expect(value.objectValue?.count == 2)
        #expect(value.objectValue?.keys.map { Array($0.utf8) } == [[0xC3, 0xA9], [0x65, 0xCC, 0x81]])
    }

    @Test func acceptsTheSameKeyInDifferentObjects() throws {
        let value = try JSONParser.parse(#"[{"a":1},{"a":2,"b":{"a":3}}]"#)
        #expect(value == [["a": 1], ["a": 2, "b": ["a": 3]]])
    }

    @Test func acceptsNestingUpToTheLimit() throws {
        let text = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        var value = try JSONParser.parse(text)
        var depth = 0
        while case .array(let elements) = value, let first = elements.first {
            depth += 1
            value = first
        }
        #expect(depth == 63)
        #expect(value == [])
    }

    @Test func refusesNestingPastTheLimit() {
        let text = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(parseError(text) == JSONParseError(offset: 64, reason: "nesting deeper than 64"))
        let objects = String(repeating: #"{"a":"#, count: 65) + "1" + String(repeating: "}", count: 65)
        #expect(parseError(objects) == JSONParseError(offset: 320, reason: "nesting deeper than 64"))
    }

    @Test func refusesAHundredThousandOpenBracketsWithoutRecursing() {
        let input = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        #expect(parseError(input) == JSONParseError(offset: 64, reason: "nesting deeper than 64"))
        let mixed = Array(String(repeating: #"{"k":["#, count: 50_000).utf8)
        #expect(parseError(mixed) == JSONParseError(offset: 32 * 6, reason: "nesting deeper than 64"))
    }

    @Test func appliesCustomLimits() {
        let shallow = JSONParser.Limits(maxDepth: 2)
        #expect(parseError("[[1]]", limits: shallow) == nil)
        #expect(parseError("[[[1]]]", limits: shallow) == JSONParseError(offset: 2, reason: "nesting deeper than 2"))
        let flat = JSONParser.Limits(maxDepth: 0)
        #expect(parseError("1", limits: flat) == nil)
        #expect(parseError("[]", limits: flat) == JSONParseError(offset: 0, reason: "nesting deeper than 0"))

        let short = JSONParser.Limits(maxStringLength: 4)
        let tooLong = "string longer than 4 bytes"
        #expect(parseError(#""abcd""#, limits: short) == nil)
        #expect(parseError(#"["abcde"]"#, limits: short) == JSONParseError(offset: 1, reason: tooLong))
        #expect(parseError(#""\u00e9\u00e9""#, limits: short) == nil)
        #expect(parseError(#""\u00e9\u00e9a""#, limits: short) == JSONParseError(offset: 0, reason: tooLong))
        #expect(parseError(#""ééa""#, limits: short) == JSONParseError(offset: 0, reason: tooLong))
        #expect(parseError(#"{"abcde":1}"#, limits: short) == JSONParseError(offset: 1, reason: tooLong))
    }

    @Test func hasSensibleDefaultLimits() {
        let limits = JSONParser.Limits()
        #expect(limits.maxDepth == 64)
        #expect(limits.maxStringLength == 16 * 1024 * 1024)
    }
}
