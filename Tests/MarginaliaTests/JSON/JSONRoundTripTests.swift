import Testing
@testable import Marginalia
import MarginaliaTestSupport

/// Random JSON values that stress the writer and the parser: every kind of scalar, escapes,
/// non-ASCII and astral text, combining marks, number boundaries, nesting and wide objects.
struct JSONValueGenerator {
    var random: SeededGenerator

    mutating func value(depth: Int = 0) -> JSONValue {
        let kinds = depth >= 5 ? 6 : 8
        switch Int.random(in: 0..<kinds, using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .int(integer())
        case 3: return .double(double())
        case 4, 5: return .string(string())
        case 6:
            let count = Int.random(in: 0...6, using: &random)
            return .array((0..<count).map { _ in value(depth: depth + 1) })
        default:
            let count = Int.random(in: 0...(depth == 0 ? 24 : 6), using: &random)
            return .object(JSONObject((0..<count).map { _ in (string(), value(depth: depth + 1)) }))
        }
    }

    mutating func integer() -> Int64 {
        let special: [Int64] = [0, 1, -1, Int64.max, Int64.min, Int64.max - 1, Int64.min + 1, 1 << 53, -(1 << 53)]
        switch Int.random(in: 0..<3, using: &random) {
        case 0: return special[Int.random(in: 0..<special.count, using: &random)]
        case 1: return Int64.random(in: -1000...1000, using: &random)
        default: return Int64(bitPattern: random.next())
        }
    }

    mutating func double() -> Double {
        let special: [Double] = [0, -0.0, 0.1, 1e-7, 1e22, 1e23, .pi, .leastNonzeroMagnitude, .leastNormalMagnitude,
                                 .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 9_007_199_254_740_992, 1.0, 1e16]
        switch Int.random(in: 0..<3, using: &random) {
        case 0:
            return special[Int.random(in: 0..<special.count, using: &random)]
        case 1:
            return Double(Int.random(in: -100_000...100_000, using: &random)) / 1000
        default:
            while true {
                let number = Double(bitPattern: random.next())
                if number.isFinite { return number }
            }
        }
    }

    mutating func string() -> String {
        let pieces: [String] = [
            "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é",
            "e\u{301}", "ş", "ţ", "ă", "€", "\u{2028}", "😀", "\u{10FFFF}", "\u{FEFF}", "note",
        ]
        let count = Int.random(in: 0...12, using: &random)
        var text = ""
        for _ in 0..<count {
            if Bool.random(using: &random) {
                text += pieces[Int.random(in: 0..<pieces.count, using: &random)]
            } else {
                let scalar = UInt32.random(in: 0...0x10FFFF, using: &random)
                text.unicodeScalars.append(Unicode.Scalar(scalar) ?? "?")
            }
        }
        return text
    }
}

@Suite struct JSONRoundTripTests {
    /// Write, read back, compare; and writing what was read gives the same bytes.
    ///
    /// To replay a failure, add the seed it reports to `roundTripsFixedSeeds`.
    func roundTrip(seed: UInt64, count: Int) throws {
        var generator = JSONValueGenerator(random: SeededGenerator(seed: seed))
        var parser = JSONParser()
        for iteration in 0..<count {
            let original = generator.value()
            let bytes = try JSONWriter.encode(original)
            let parsed = try parser.parse(bytes)
            let again = try JSONWriter.encode(parsed)
            if parsed != original || again != bytes {
                let written = String(decoding: bytes, as: UTF8.self)
                let rewritten = String(decoding: again, as: UTF8.self)
                Issue.record("seed \(seed), iteration \(iteration): \(written) read back as \(rewritten)")
                return
            }
        }
    }

    @Test func roundTripsFixedSeeds() throws {
        for seed: UInt64 in [1, 2, 3, 0xDEAD_BEEF] {
            try roundTrip(seed: seed, count: 500)
        }
    }

    @Test func roundTripsARandomSeed() throws {
        try roundTrip(seed: TestSeed.seed(), count: 2000)
    }

    @Test func neverCrashesOnCorruptedLines() throws {
        // Flipping bytes of valid lines must end in a value or a refusal, and a value must re-encode.
        let seed = TestSeed.seed()
        var generator = JSONValueGenerator(random: SeededGenerator(seed: seed))
        var random = SeededGenerator(seed: seed ^ 0x5555)
        var parser = JSONParser()
        for iteration in 0..<2000 {
            var bytes = try JSONWriter.encode(generator.value())
            for _ in 0...Int.random(in: 0...3, using: &random) where !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            do {
                let value = try parser.parse(bytes)
                let again = try JSONWriter.encode(value)
                #expect(try parser.parse(again) == value, "seed \(seed), iteration \(iteration)")
            } catch let error as JSONParseError {
                #expect(error.offset >= 0 && error.offset <= bytes.count, "seed \(seed), iteration \(iteration)")
                #expect(!error.reason.isEmpty)
            }
        }
    }
}
