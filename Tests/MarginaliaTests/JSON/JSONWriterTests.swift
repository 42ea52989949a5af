import Testing
@testable import Marginalia

@Suite struct JSONWriterTests {
    /// The text `value` encodes to.
    func encoded(_ value: JSONValue) throws -> String {
        try JSONWriter.encodeString(value)
    }

    @Test func writesScalars() throws {
        #expect(try encoded(.null) == "null")
        #expect(try encoded(true) == "true")
        #expect(try encoded(false) == "false")
        #expect(try encoded(0) == "0")
        #expect(try encoded(-1) == "-1")
        #expect(try encoded(.int(Int64.max)) == "9223372036854775807")
        #expect(try encoded(.int(Int64.min)) == "-9223372036854775808")
        #expect(try encoded("") == #""""#)
        #expect(try encoded([]) == "[]")
        #expect(try encoded([:]) == "{}")
    }

    @Test func writesDoublesInTheirShortestRoundTripForm() throws {
        #expect(try encoded(0.1) == "0.1")
        #expect(try encoded(1.0) == "1.0")
        #expect(try encoded(-0.0) == "-0.0")
        #expect(try encoded(1e-7) == "1e-07")
        #expect(try encoded(.double(0.1 + 0.2)) == "0.30000000000000004")
        #expect(try encoded(1e300) == "1e+300")
        #expect(try encoded(.double(.greatestFiniteMagnitude)) == "1.7976931348623157e+308")
        #expect(try encoded(.double(.leastNonzeroMagnitude)) == "5e-324")
        #expect(try encoded(.double(9_007_199_254_740_992)) == "9007199254740992.0")
    }

    @Test func escapesOnlyQuotesBackslashesAndControls() throws {
        let text = "\"\\/\u{8}\u{C}\n\r\t\u{0}\u{1}\u{1F}\u{7F}é😀\u{2028}\u{2029}"
        let expected = #""\"\\/\b\f\n\r\t\u0000\u0001\u001f"# + "\u{7F}é😀\u{2028}\u{2029}\""
        #expect(try encoded(.string(text)) == expected)
        #expect(try JSONWriter.encode(.string("ţ")) == [0x22, 0xC5, 0xA3, 0x22])
    }

    @Test func copiesLongRunsBetweenEscapes() throws {
        let text = String(repeating: "abc\"", count: 3) + String(repeating: "x", count: 100) + "\n"
        let expected = "\"" + String(repeating: #"abc\""#, count: 3) + String(repeating: "x", count: 100) + #"\n""#
        #expect(try encoded(.string(text)) == expected)
    }

    @Test func writesContainersInOrder() throws {
        let value: JSONValue = ["z": [1, "two", ["three": .null]], "a": [:], "m": [[], [true]]]
        #expect(try encoded(value) == #"{"z":[1,"two",{"three":null}],"a":{},"m":[[],[true]]}"#)
    }

    @Test func isDeterministic() throws {
        let value: JSONValue = ["note": "ştiinţă", "tags": ["poezie", "ţară"], "rev": 3, "score": 0.5]
        let first = try JSONWriter.encode(value)
        #expect(try JSONWriter.encode(value) == first)
        #expect(try JSONWriter.encode(JSONParser.parse(first)) == first)
    }

    @Test func streamsAnObjectWithCommasInPlace() throws {
        var writer = JSONWriter()
        try writer.beginObject()
        try writer.key("type")
        try writer.string("change")
        try writer.key("rev")
        try writer.int(3)
        try writer.key("score")
        try writer.double(0.25)
        try writer.key("done")
        try writer.bool(false)
        try writer.key("parent")
        try writer.null()
        try writer.key("fields")
        try writer.beginObject()
        try writer.key("tags")
        try writer.beginArray()
        try writer.string("a")
        try writer.beginArray()
        try writer.endArray()
        try writer.beginObject()
        try writer.endObject()
        try writer.int(-7)
        try writer.endArray()
        try writer.endObject()
        try writer.key("whole")
        try writer.value(["x": [1, 2]])
        try writer.endObject()
        let expected = #"{"type":"change","rev":3,"score":0.25,"done":false,"parent":null,"#
            + #""fields":{"tags":["a",[],{},-7]},"whole":{"x":[1,2]}}"#
        #expect(writer.text == expected)
        #expect(writer.bytes == Array(expected.utf8))
        #expect(writer.isComplete)
    }

    @Test func writesLinesOneAfterAnother() throws {
        var writer = JSONWriter(capacity: 64)
        try writer.value(["n": 1])
        try writer.newline()
        try writer.beginArray()
        try writer.int(2)
        try writer.endArray()
        try writer.newline()
        #expect(writer.text == "{\"n\":1}\n[2]\n")
        writer.reset()
        #expect(writer.bytes.isEmpty)
        try writer.string("again")
        #expect(writer.text == #""again""#)
        writer.removeAll()
        try writer.int(1)
        #expect(writer.text == "1")
    }

    @Test func refusesNonFiniteDoublesWithoutWritingAnything() throws {
        for number in [Double.nan, .infinity, -.infinity, .signalingNaN] {
            var writer = JSONWriter()
            try writer.beginArray()
            try writer.int(1)
            #expect(throws: JSONWriteError.nonFiniteNumber) { try writer.double(number) }
            #expect(throws: JSONWriteError.nonFiniteNumber) { try writer.value(["ok": 1, "bad": [.double(number)]]) }
            #expect(writer.text == "[1")
            try writer.int(2)
            try writer.endArray()
            #expect(writer.text == "[1,2]")
            #expect(throws: JSONWriteError.nonFiniteNumber) { try JSONWriter.encode(.double(number)) }
        }
    }

    @Test func refusesCallsOutOfOrderWithoutWritingAnything() throws {
        var writer = JSONWriter()
        #expect(throws: JSONWriteError.keyOutsideObject) { try writer.key("a") }
        #expect(throws: JSONWriteError.mismatchedEnd) { try writer.endObject() }
        #expect(throws: JSONWriteError.mismatchedEnd) { try writer.endArray() }
        #expect(throws: JSONWriteError.incompleteValue) { try writer.newline() }
        try writer.beginArray()
        #expect(throws: JSONWriteError.keyOutsideObject) { try writer.key("a") }
        #expect(throws: JSONWriteError.mismatchedEnd) { try writer.endObject() }
        try writer.beginObject()
        #expect(throws: JSONWriteError.missingKey) { try writer.int(1) }
        #expect(throws: JSONWriteError.missingKey) { try writer.value("x") }
        #expect(throws: JSONWriteError.mismatchedEnd) { try writer.endArray() }
        try writer.key("a")
        #expect(throws: JSONWriteError.missingValue) { try writer.key("b") }
        #expect(throws: JSONWriteError.missingValue) { try writer.endObject() }
        #expect(throws: JSONWriteError.incompleteValue) { try writer.newline() }
        #expect(writer.text == #"[{"a":"#)
        #expect(!writer.isComplete)
        try writer.int(1)
        try writer.endObject()
        try writer.endArray()
        #expect(throws: JSONWriteError.valueAlreadyComplete) { try writer.int(2) }
        #expect(throws: JSONWriteError.valueAlreadyComplete) { try writer.beginObject() }
        #expect(writer.text == #"[{"a":1}]"#)
    }

    @Test func describesWriteErrors() {
        #expect(JSONWriteError.nonFiniteNumber.description == "JSON cannot represent NaN or infinity")
        #expect(JSONWriteError.missingKey.description == "a value inside an object needs a key first")
    }
}

extension JSONWriterTests {
    @Test func escapesAtEveryPositionOfALongString() throws {
        // The scan reads eight bytes at a time; each position within and across words must be found.
        for position in 0..<40 {
            for (special, escaped) in [("\u{1}", #"\u0001"#), ("\"", #"\""#), ("\\", #"\\"#), ("\n", #"\n"#)] {
                var characters = Array(repeating: "é", count: 2) + Array(repeating: "a", count: 46)
                characters[position + 2] = special
                let text = characters.joined()
                let expected = "\"" + characters.map { $0 == special ? escaped : $0 }.joined() + "\""
                #expect(try encoded(.string(text)) == expected, "position \(position)")
            }
        }
    }

    @Test func copiesRawValuesAsTheyAre() throws {
        var writer = JSONWriter()
        try writer.beginObject()
        try writer.key("fields")
        let stored = Array(#"{"note":"ţară","tags":["a"]}"#.utf8)
        try stored.withUnsafeBytes { raw in try writer.rawValue(raw) }
        try writer.key("list")
        try writer.beginArray()
        try writer.rawValue(Array("1".utf8))
        try writer.rawValue(Array("[2]".utf8))
        #expect(throws: JSONWriteError.emptyRawValue) { try writer.rawValue([]) }
        try writer.endArray()
        #expect(throws: JSONWriteError.missingKey) { try writer.rawValue(Array("3".utf8)) }
        try writer.endObject()
        #expect(writer.text == #"{"fields":{"note":"ţară","tags":["a"]},"list":[1,[2]]}"#)
        #expect(try JSONParser.parse(writer.bytes)["fields"]?["note"] == "ţară")
    }
}
