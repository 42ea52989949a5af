import Foundation
import Marginalia
import MarginaliaTestSupport
import Testing

/// Whether Debian's `faketime` is installed (`.ci/run` installs it).
let hasFaketime = FileManager.default.isExecutableFile(atPath: "/usr/bin/faketime")

extension CLIWorkspace {
    /// Runs `marginalia ARGS` under `faketime`, the machine's clock starting at `milliseconds` (UTC) and running on
    /// from there; only the wall clock is moved (`FAKETIME_DONT_FAKE_MONOTONIC`), so timeouts keep their length.
    func run(at milliseconds: Int64, _ arguments: [String]) throws -> CLIResult {
        let seconds = milliseconds / 1000
        let date = Date(timeIntervalSince1970: TimeInterval(seconds))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let stamp = String(format: "@%04d-%02d-%02d %02d:%02d:%02d", parts.year ?? 0, parts.month ?? 0,
                           parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
        return try ChildProcess("/usr/bin/faketime", ["-f", stamp, Self.binary.path] + arguments,
                                environment: environment(["FAKETIME_DONT_FAKE_MONOTONIC": "1", "TZ": "UTC"])).run()
    }

    /// `run(at:_:)` for a command that must succeed.
    @discardableResult
    func ok(at milliseconds: Int64, _ arguments: [String]) throws -> CLIResult {
        let result = try run(at: milliseconds, arguments)
        guard result.status == 0 else { throw CLIFailure(result: result) }
        return result
    }
}

/// A person's timeline, with the machine's clock moved by `faketime` (Debian's, through the built binary): days
/// between sessions are no wrong clock, and a clock that was wrong once neither stalls sync nor dates notes wrong.
/// Each test is seeded (the hours of each break, the notes' passages) and prints its seed.
@Suite(.serialized, .enabled(if: hasFaketime)) struct ClockTimelineTests {
    static let day: Int64 = 86_400_000
    static let hour: Int64 = 3_600_000
    static let passages = (1...4).map { "mai-am-un-singur-dor.\($0)" }

    /// Now, to the second, an hour ago: every faked time of a test is after it unless the test sets it back.
    static func start() -> Int64 {
        (Int64(Date().timeIntervalSince1970) - 3600) * 1000
    }

    @Test func aNoteWrittenTwoOrSixtyDaysAfterTheLastRaisesNothing() throws {
        let seed = TestSeed.printed(for: "ClockTimelineTests breaks")
        var random = SeededGenerator(seed: seed)
        let workspace = try CLIWorkspace()
        var time = Self.start() - 70 * Self.day
        try workspace.ok(at: time, ["note", Self.passages[0], "before the break"])
        for days in [Int64(2), 60] {
            time += days * Self.day + Int64.random(in: 0..<12, using: &random) * Self.hour
            let passage = Self.passages.randomElement(using: &random) ?? Self.passages[1]
            let written = try workspace.ok(at: time, ["note", passage, "after \(days) days"])
            #expect(!written.stderr.contains("Warning"), "seed \(seed): \(written.stderr)")
        }
        let held = try #require(try workspace.ok(at: time, ["--json", "quarantine"]).json() as? [String: Any])
        #expect((held["quarantined"] as? [Any])?.isEmpty == true, "seed \(seed)")
        #expect((held["clockNotes"] as? [Any])?.isEmpty == true, "seed \(seed)")
    }

    @Test func aMachineFiveDaysAheadOnceThenCorrectedHoldsUpNothingElse() throws {
        let seed = TestSeed.printed(for: "ClockTimelineTests skew")
        var random = SeededGenerator(seed: seed)
        let workspace = try CLIWorkspace()
        let folder = workspace.path("Sync")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let laptop = try workspace.newStore("laptop.db")
        let phone = try workspace.newStore("phone.db")
        let now = Self.start()
        // One roster first, before either store makes a change.
        try workspace.admit(phone, by: laptop, folder: folder, at: now - 60_000)
        try workspace.ok(at: now, ["--store", phone, "note", Self.passages[0], "on the phone"])
        // One note with the clock five days ahead, then the clock is set right and five more are written.
        try workspace.ok(at: now + 5 * Self.day, ["--store", laptop, "note", Self.passages[1], "skewed"])
        var written: [Int64] = []
        for index in 0..<5 {
            let time = now + 60_000 * Int64(index + 1) + Int64.random(in: 0..<30, using: &random) * 1000
            let passage = Self.passages.randomElement(using: &random) ?? Self.passages[2]
            let made = try workspace.ok(at: time, ["--store", laptop, "note", passage, "corrected \(index)"])
            #expect(!made.stderr.contains("ahead"), "seed \(seed): \(made.stderr)")
            written.append(time)
        }
        try workspace.ok(at: now + 10 * 60_000, ["--store", laptop, "sync", folder])

        // The phone, whose clock is right, takes all five in one round; the skewed note is held, and said so.
        let round = try workspace.ok(at: now + 11 * 60_000, ["--store", phone, "sync", folder])
        let listed = try workspace.ok(at: now + 12 * 60_000, ["--store", phone, "list"]).stdout
        for index in 0..<5 { #expect(listed.contains("corrected \(index)"), "seed \(seed)\n\(round.stdout)") }
        #expect(!listed.contains("skewed"))
        #expect(round.stdout.contains("Held 1 change made up to 4 days ahead of this machine's clock"),
                "seed \(seed)\n\(round.stdout)")
        // The commands to let it in carry the store the round was run on.
        #expect(round.stdout.contains("marginalia --store \(phone) sync \(folder) --accept-future")
            && round.stdout.contains("marginalia --store \(phone) quarantine --release"), "seed \(seed)\n\(round.stdout)")

        // The log says when each note was written, not the clock that orders it (five days ahead).
        let log = try #require(try workspace.ok(at: now + 13 * 60_000, ["--store", phone, "--json", "log"]).stdout
            .data(using: .utf8).flatMap { try JSONSerialization.jsonObject(with: $0) as? [[String: Any]] })
        let corrected = log.filter { ($0["fields"] as? [String: Any])?["note"].map { "\($0)".hasPrefix("corrected") } == true }
        #expect(corrected.count == 5, "seed \(seed)")
        for (entry, time) in zip(corrected, written) {
            #expect(entry["time"] as? String == Timestamp.iso8601(milliseconds: time) || (entry["time"] as? String)
                .flatMap(Timestamp.parseISO8601).map { $0 >= time && $0 < time + 5000 } == true,
                "seed \(seed): \(entry)")
        }

        // `show` says the same of when it was made.
        if let id = corrected.first?["entityId"] as? String, let time = written.first {
            let shown = try workspace.ok(at: now + 13 * 60_000, ["--store", phone, "show", id]).stdout
            let created = shown.split(separator: "\n").first { $0.hasPrefix("created:") }.map(String.init) ?? ""
            let stamp = created.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first
                .flatMap { Timestamp.parseISO8601(String($0)) }
            #expect(stamp.map { $0 >= time && $0 < time + 5000 } == true, "seed \(seed): \(created)")
        }

        // Let in by hand, the held note joins the rest.
        let released = try workspace.ok(at: now + 14 * 60_000, ["--store", phone, "quarantine", "--release"])
        #expect(released.stdout.contains("Merged 1 change held in quarantine."))
        #expect(try workspace.ok(at: now + 15 * 60_000, ["--store", phone, "list"]).stdout.contains("skewed"))
    }

    @Test func aClockSetBackThreeDaysIsNotedOnceAndItsNotesFlow() throws {
        let seed = TestSeed.printed(for: "ClockTimelineTests set back")
        var random = SeededGenerator(seed: seed)
        let workspace = try CLIWorkspace()
        let folder = workspace.path("Sync")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let tablet = try workspace.newStore("tablet.db")
        let now = Self.start()
        // One roster first, before either store makes a change.
        try workspace.admit(tablet, by: workspace.store, folder: folder, at: now - 60_000)
        try workspace.ok(at: now, ["--store", tablet, "note", Self.passages[0], "on time"])
        let back = now - 3 * Self.day - Int64.random(in: 0..<6, using: &random) * Self.hour
        let first = try workspace.ok(at: back, ["--store", tablet, "note", Self.passages[1], "set back 1"])
        #expect(first.stderr.contains("Warning: this machine's clock")
            && first.stderr.contains("behind the time of the newest change made on it"), "seed \(seed)")
        let second = try workspace.ok(at: back + 60_000, ["--store", tablet, "note", Self.passages[2], "set back 2"])
        #expect(!second.stderr.contains("Warning"), "seed \(seed): noted twice")
        let notes = try #require(try workspace.ok(at: back + 60_000, ["--store", tablet, "--json", "quarantine"])
            .json() as? [String: Any])
        #expect((notes["clockNotes"] as? [Any])?.count == 1, "seed \(seed)")
        // Notes made in the past are never held: the other machine takes them in one round.
        try workspace.ok(at: back + 120_000, ["--store", tablet, "sync", folder])
        let round = try workspace.ok(at: now + 60_000, ["sync", folder])
        #expect(!round.stdout.contains("Held"), "seed \(seed)\n\(round.stdout)")
        let listed = try workspace.ok(at: now + 120_000, ["list"]).stdout
        #expect(listed.contains("set back 1") && listed.contains("set back 2") && listed.contains("on time"))
    }
}
