import Foundation

/// Deterministic pseudo-random numbers (SplitMix64), so that a randomized test replays exactly from its seed.
///
///     var random = SeededGenerator(seed: TestSeed.printed(for: "merge convergence"))
///     let count = Int.random(in: 3...5, using: &random)
///
/// SplitMix64 is small, fast and gives a well-mixed sequence from any 64-bit seed, zero included.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// The seeds of randomized tests: the one set in the environment, to replay a failure, else fresh ones.
///
/// `MARGINALIA_TEST_SEED=<seed> swift test --filter <Suite>` replays a run; a test names its seed in what it
/// prints and in the issues it records, so that a failure says how to replay it.
public enum TestSeed {
    /// The environment variable that replays a randomized test.
    public static let variable = "MARGINALIA_TEST_SEED"

    /// The seed set in the environment variable `variable`; nil when it is unset or not a number.
    public static func fromEnvironment(_ variable: String = TestSeed.variable) -> UInt64? {
        ProcessInfo.processInfo.environment[variable].flatMap { UInt64($0) }
    }

    /// The seed set in `variable`, else a fresh random one.
    public static func seed(variable: String = TestSeed.variable) -> UInt64 {
        fromEnvironment(variable) ?? UInt64.random(in: 1...UInt64.max)
    }

    /// The one seed set in `MARGINALIA_TEST_SEED`, else `count` fresh random ones (for a test that runs several).
    public static func seeds(count: Int) -> [UInt64] {
        if let seed = fromEnvironment() { return [seed] }
        return (0..<count).map { _ in UInt64.random(in: 1...UInt64.max) }
    }

    /// The seed set in `variable`, else a fresh random one; printed either way, with how to replay it:
    /// `<test>: seed 42 (replay with MARGINALIA_TEST_SEED=42)`.
    ///
    /// - Parameters:
    ///   - test: what the printed line names (the test, or the part of it the seed drives).
    ///   - variable: the environment variable that replays it.
    public static func printed(for test: String, variable: String = TestSeed.variable) -> UInt64 {
        let seed = Self.seed(variable: variable)
        print("\(test): seed \(seed) (replay with \(variable)=\(seed))")
        return seed
    }
}
