import Testing
@testable import Marginalia

@Suite struct JSONValueTests {
    @Test func readsThroughTypedAccessors() {
        let value: JSONValue = ["s": "text", "i": 7, "d": 2.5, "b": true, "a": [1, 2], "o": ["k": .null], "n": .null]
        #expect(value["s"]?.stringValue == "text")
        #expect(value["i"]?.intValue == 7)
        #expect(value["i"]?.doubleValue == 7.0)
        #expect(value["d"]?.doubleValue == 2.5)
        #expect(value["d"]?.intValue == nil)
        #expect(value["b"]?.boolValue == true)
        #expect(value["a"]?.arrayValue == [1, 2])
        #expect(value["a"]?[1] == 2)
        #expect(value["a"]?[2] == nil)
        #expect(value["o"]?.objectValue == ["k": .null])
        #expect(value["n"]?.isNull == true)
        #expect(value["missing"] == nil)
        #expect(value["s"]?["x"] == nil)
        #expect(value["s"]?.arrayValue == nil)
    }

    @Test func comparesObjectsRegardlessOfOrder() {
        let first: JSONObject = ["a": 1, "b": [true], "c": ["x": "y"]]
        let second: JSONObject = ["c": ["x": "y"], "a": 1, "b": [true]]
        #expect(first == second)
        #expect(first != ["a": 1, "b": [true]])
        #expect(first != ["a": 1, "b": [false], "c": ["x": "y"]])
        #expect(first != ["a": 1, "b": [true], "d": ["x": "y"]])
    }

    @Test func comparesExactly() {
        #expect(JSONValue.int(1) != .double(1))
        #expect(JSONValue.double(0) != .double(-0.0))
        #expect(JSONValue.double(.nan) == .double(.nan))
        #expect(JSONValue.string("é") != .string("e\u{301}"))
        #expect(JSONValue.string("é") == .string("\u{E9}"))
        #expect(JSONValue.array([1, 2]) != [2, 1])
        #expect(JSONValue.null != .bool(false))
    }

    @Test func buildsObjectsFromPairs() {
        var object = JSONObject([("a", 1), ("b", 2), ("a", 3)])
        #expect(object.keys == ["a", "b"])
        #expect(object["a"] == 3)
        #expect(object.count == 2)
        object["c"] = "new"
        object["b"] = nil
        object["a"] = 4
        object["missing"] = nil
        #expect(object.keys == ["a", "c"])
        #expect(object.values == [4, "new"])
        #expect(object.map(\.key) == ["a", "c"])
        #expect(object.index(forKey: "c") == 1)
        #expect(object[1].value == "new")
    }

    @Test func buildsLargeObjectsFromPairs() {
        let pairs = (0..<100).map { ("k\($0 % 40)", JSONValue.int(Int64($0))) }
        let object = JSONObject(pairs)
        #expect(object.count == 40)
        #expect(object.keys.first == "k0")
        #expect(object["k0"] == 80)
        #expect(object["k39"] == 79)
    }

    @Test func keepsCanonicallyEquivalentKeysApart() {
        var object = JSONObject()
        object["é"] = 1
        object["e\u{301}"] = 2
        #expect(object.count == 2)
        #expect(object["é"] == 1)
        #expect(object["e\u{301}"] == 2)
    }
}
