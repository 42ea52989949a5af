import Testing
@testable import Marginalia
import MarginaliaTestSupport

@Suite struct JSONParserTests {
    @Test func readsScalars() throws {
        #expect(try JSONParser.parse("null") == .null)
        #expect(try JSONParser.parse("true") == .bool(true))
        #expect(try JSONParser.parse("false") == .bool(false))
        #expect(try JSONParser.parse(" \t\r\n42 \n") == .int(42))
        #expect(try JSONParser.parse(#""""#) == .string(""))
        #expect(try JSONParser.parse("[]") == .array([]))
        #expect(try JSONParser.parse("{}") == .object(JSONObject()))
    }

    @Test func readsIntegersAtTheInt64Boundaries() throws {
        #expect(try JSONParser.parse("0") == .int(0))
        #expect(try JSONParser.parse("-0") == .int(0))
        #expect(try JSONParser.parse("9223372036854775807") == .int(Int64.max))
        #expect(try JSONParser.parse("-9223372036854775808") == .int(Int64.min))
        // One past either end no longer fits Int64 and becomes the nearest double.
        #expect(try JSONParser.parse("9223372036854775808") == .double(9_223_372_036_854_775_808.0))
        #expect(try JSONParser.parse("-9223372036854775809") == .double(-9_223_372_036_854_775_808.0))
        #expect(try JSONParser.parse("18446744073709551616") == .double(18_446_744_073_709_551_616.0))
        #expect(try JSONParser.parse("123456789012345678901234567890") == .double(1.2345678901234568e29))
    }

    @Test func readsDoubles() throws {
        #expect(try JSONParser.parse("1e-7") == .double(1e-7))
        #expect(try JSONParser.parse("1E+2") == .double(100))
        #expect(try JSONParser.parse("1.0") == .double(1))
        #expect(try JSONParser.parse("0.1") == .double(0.1))
        #expect(try JSONParser.parse("-2.5e-3") == .double(-0.0025))
        #expect(try JSONParser.parse("0.30000000000000004") == .double(0.1 + 0.2))
        #expect(try JSONParser.parse("1e22") == .double(1e22))
        #expect(try JSONParser.parse("1e23") == .double(1e23))
        #expect(try JSONParser.parse("1.7976931348623157e308") == .double(.greatestFiniteMagnitude))
        #expect(try JSONParser.parse("2.2250738585072014e-308") == .double(.leastNormalMagnitude))
        #expect(try JSONParser.parse("5e-324") == .double(.leastNonzeroMagnitude))
        #expect(try JSONParser.parse("3.14159265358979323846264338327950288") == .double(.pi))
        #expect(try JSONParser.parse("0.000000000000000000000000000001") == .double(1e-30))
        #expect(try JSONParser.parse("1e-400") == .double(0))
        #expect(try JSONParser.parse("0e999999") == .double(0))
    }

    @Test func keepsTheSignOfNegativeZero() throws {
        let value = try JSONParser.parse("-0.0")
        #expect(value == .double(-0.0))
        #expect(value != .double(0.0))
        #expect(value.doubleValue?.sign == .minus)
        #expect(try JSONParser.parse("-0e5") == .double(-0.0))
    }

    @Test func readsNumbersExactlyLikeTheStandardLibrary() throws {
        // Random decimal texts, short and long, near and far from the exact-double fast path.
        let seed = TestSeed.seed()
        var random = SeededGenerator(seed: seed)
        for _ in 0..<20_000 {
            var text = random.next() % 2 == 0 ? "-" : ""
            let integerDigits = Int(random.next() % 22) + 1
            text += String(Int(random.next() % 9) + 1)
            for _ in 1..<integerDigits { text += String(random.next() % 10) }
            if random.next() % 2 == 0 {
                text += "."
                for _ in 0...(random.next() % 20) { text += String(random.next() % 10) }
            }
            if random.next() % 2 == 0 {
                // Half near the exact-double fast path's edge of 10^±22, half anywhere in range.
                text += random.next() % 2 == 0 ? "e-" : "e"
                text += String(random.next() % 2 == 0 ? random.next() % 30 : random.next() % 330)
            }
            guard let expected = Double(text), expected.isFinite else { continue }
            let value = try JSONParser.parse(text)
            let parsed = value.doubleValue ?? .nan
            #expect(parsed.bitPattern == expected.bitPattern, "\(text) with seed \(seed)")
        }
    }

    @Test func decodesEscapes() throws {
        let value = try JSONParser.parse(#""\"\\\/\b\f\n\r\t""#)
        #expect(value == .string("\"\\/\u{8}\u{C}\n\r\t"))
        #expect(try JSONParser.parse(#""\u0000""#) == .string("\u{0}"))
        #expect(try JSONParser.parse(#""\u00e9\u00C9\u20AC""#) == .string("éÉ€"))
        #expect(try JSONParser.parse(#""caf\u00e9 au lait""#) == .string("café au lait"))
    }

    @Test func combinesSurrogatePairsIntoOneScalar() throws {
        let value = try JSONParser.parse(#""\ud83d\ude00 \uD834\uDD1E \udbff\udfff""#)
        let scalars = value.stringValue?.unicodeScalars.map(\.value)
        #expect(scalars == [0x1F600, 0x20, 0x1D11E, 0x20, 0x10FFFF])
    }

    @Test func keepsRawUTF8AsIs() throws {
        let text = "Ce frumos e versul acesta, ştiinţă şi ţară 😀 \u{2028}\u{2029} \u{7F}"
        let value = try JSONParser.parse("\"" + text + "\"")
        #expect(value.stringValue.map { Array($0.utf8) } == Array(text.utf8))
    }

    @Test func readsNestedStructures() throws {
        let value = try JSONParser.parse(#" { "a" : [ 1 , { "b" : null } , -2.5 ] , "c" : { "d" : [ [ ] , { } ] } } "#)
        let expected: JSONValue = ["a": [1, ["b": .null], -2.5], "c": ["d": [[], [:]]]]
        #expect(value == expected)
    }

    @Test func keepsKeysInDocumentOrder() throws {
        let value = try JSONParser.parse(#"{"z":1,"a":2,"m":{"y":true,"b":false}}"#)
        #expect(value.objectValue?.keys == ["z", "a", "m"])
        #expect(value["m"]?.objectValue?.keys == ["y", "b"])
        #expect(value["a"]?.intValue == 2)
    }

    @Test func readsATypicalArchiveLine() throws {
        let line = #"{"type":"change","changeId":"3f1c2a9e-0000-4000-8000-000000000001","#
            + #""hlc":"001795954481123-00000","op":"update","fields":{"note":"Ce frumos e versul acesta, "#
            + #"ştiinţă şi ţară","tags":["poezie"]}}"#
        let value = try JSONParser.parse(line)
        #expect(value["type"]?.stringValue == "change")
        #expect(value["hlc"]?.stringValue == "001795954481123-00000")
        #expect(value["fields"]?["note"]?.stringValue == "Ce frumos e versul acesta, ştiinţă şi ţară")
        #expect(value["fields"]?["tags"] == ["poezie"])
        #expect(value.objectValue?.count == 5)
    }

    @Test func readsEveryKindOfInput() throws {
        var parser = JSONParser()
        let bytes = Array(#"{"a":[1,"x"]}"#.utf8)
        let expected: JSONValue = ["a": [1, "x"]]
        #expect(try parser.parse(bytes) == expected)
        #expect(try parser.parse(#"{"a":[1,"x"]}"#) == expected)
        #expect(try bytes.withUnsafeBytes { raw in try parser.parse(raw) } == expected)
        #expect(try bytes.withUnsafeBufferPointer { buffer in try parser.parse(buffer) } == expected)
    }

    @Test func countsOffsetsFromTheStartOfASlice() throws {
        let bytes = Array("[1,2]\n[3,x]\n".utf8)
        var parser = JSONParser()
        #expect(try parser.parse(bytes[0..<5]) == [1, 2])
        #expect(throws: JSONParseError(offset: 3, reason: "unexpected character 'x'")) {
            try parser.parse(bytes[6..<11])
        }
    }

    @Test func keepsWorkingAfterARefusal() throws {
        var parser = JSONParser()
        #expect(throws: JSONParseError(offset: 11, reason: "unexpected end of input")) {
            try parser.parse(#"[{"a":["x","#)
        }
        #expect(try parser.parse(#"{"b":[true]}"#) == ["b": [true]])
        #expect(throws: JSONParseError(offset: 7, reason: #"duplicate key "a""#)) {
            try parser.parse(#"{"a":1,"a":2}"#)
        }
        #expect(try parser.parse(#"[{"a":1},{"a":2}]"#) == [["a": 1], ["a": 2]])
    }

    @Test func readsAnObjectLargerThanTheLinearSearchLimit() throws {
        var text = "{"
        for number in 0..<200 {
            text += (number == 0 ? "" : ",") + "\"k\(number)\":\(number)"
        }
        let value = try JSONParser.parse(text + "}")
        #expect(value.objectValue?.count == 200)
        #expect(value["k0"] == 0)
        #expect(value["k199"] == 199)
        #expect(value.objectValue?.keys.last == "k199")
    }

    @Test func readsLongStringsWithEscapesAndNonASCII() throws {
        let piece = "abcdefgh\"ij\\kl\nmnăîşţâ😀"
        let long = String(repeating: piece, count: 1000)
        let bytes = try JSONWriter.encode(.string(long))
        #expect(try JSONParser.parse(bytes) == .string(long))
    }
}
