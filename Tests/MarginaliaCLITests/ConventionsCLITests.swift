import Foundation
import Testing

/// The conventions a person meets: suggestions, usage on stderr, no-op edits, counts, titles, times.
@Suite struct ConventionsCLITests {
    @Test func aMistypedCommandOrOptionGetsTheNearestOne() throws {
        let workspace = try CLIWorkspace()
        let cases: [([String], String)] = [
            (["higlight", "x"], "Error: unknown command 'higlight'; did you mean 'highlight'?\n"),
            (["serach", "tara"], "Error: unknown command 'serach'; did you mean 'search'?\n"),
            (["content", "documnets"],
             "Error: unknown command 'content documnets'; did you mean 'content documents'?\n"),
            (["list", "--tagg", "x"], "Error: unknown option '--tagg'; did you mean '--tag'?\n"),
            (["highlight", "x", "--colour", "red"], "Error: unknown option '--colour'; did you mean '--color'?\n"),
            (["frobnicate"], "Error: unknown command 'frobnicate'\n"),
            (["list", "--zzz"], "Error: unknown option '--zzz'\n"),
        ]
        for (arguments, first) in cases {
            let result = try workspace.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments)")
            #expect(result.stderr.hasPrefix(first), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("\nUsage: marginalia "), "\(arguments)")
        }
        let help = try workspace.run(["help", "serch"])
        #expect(help.status == 64 && help.stderr.hasPrefix("Error: no command 'serch'; did you mean 'search'?\n"))
        #expect(!FileManager.default.fileExists(atPath: workspace.store))
    }

    @Test func usageGoesToStderrOnAUsageErrorAndHelpAskedForToStdout() throws {
        let workspace = try CLIWorkspace()
        for arguments in [[], ["content"]] {
            let bare = try workspace.run(arguments)
            #expect(bare.status == 64 && bare.stdout.isEmpty, "\(arguments)")
            #expect(bare.stderr.hasPrefix("OVERVIEW: "), "\(arguments)")
            let asked = try workspace.run(arguments + ["--help"])
            #expect(asked.status == 0 && asked.stderr.isEmpty && asked.stdout == bare.stderr, "\(arguments)")
        }
        // Every usage line, of every command the help lists, has single spaces.
        let top = try workspace.ok(["--help"])
        #expect(top.contains("USAGE: marginalia <subcommand>\n"))
        let names = top.components(separatedBy: "SUBCOMMANDS:\n")[1].components(separatedBy: "\n\n")[0]
            .split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .map { $0.trimmingCharacters(in: .whitespaces).components(separatedBy: "  ")[0] }
        #expect(names.count >= 20 && names.contains("read") && names.contains("content documents"))
        for name in names {
            let text = try workspace.ok(["help"] + name.split(separator: " ").map(String.init))
            let usage = try #require(text.split(separator: "\n").first { $0.hasPrefix("USAGE: ") }, "\(name)")
            #expect(!usage.contains("  ") && usage.hasPrefix("USAGE: marginalia \(name)"), "\(usage)")
        }
    }

    @Test func anEditThatChangesNothingSaysSoExitsZeroAndWritesNothing() throws {
        let workspace = try CLIWorkspace()
        let id = try workspace.ok(["highlight", "mai-am-un-singur-dor.1", "--note", "n", "--tag", "ţară"])
        let before = try workspace.bytes(workspace.store)
        let cases: [([String], String)] = [
            (["edit", id, "--note", "n"], "Nothing to change: annotation \(id) already has those values\n"),
            (["edit", id, "--untag", "absent"], "Nothing to change: annotation \(id) already has those values\n"),
            (["edit", id, "--tag", "ţară"], "Nothing to change: annotation \(id) already has those values\n"),
            (["undelete", id], "Nothing to change: annotation \(id) is not deleted\n"),
        ]
        for (arguments, message) in cases {
            let result = try workspace.run(arguments)
            #expect(result.status == 0 && result.stdout.isEmpty, "\(arguments)")
            #expect(result.stderr == message, "\(arguments)")
        }
        let json = try workspace.run(["edit", String(id.prefix(8)), "--note", "n", "--json"])
        let shown = try json.json() as? [String: Any]
        #expect(json.status == 0 && shown?["id"] as? String == id)
        #expect(try workspace.bytes(workspace.store) == before)
        try workspace.ok(["delete", id])
        let again = try workspace.run(["delete", id])
        #expect(again.status == 0 && again.stderr == "Nothing to change: annotation \(id) is already deleted\n")
        // An edit of a deleted annotation is refused: it is not a no-op, it cannot be done.
        let refused = try workspace.run(["edit", id, "--note", "m"])
        #expect(refused.status == 65 && refused.stderr.contains("is deleted; undelete it first"))
    }

    @Test func countsAreGrammaticalAndABookmarksTitleIsATitle() throws {
        let workspace = try CLIWorkspace()
        let bookmark = try workspace.ok(["bookmark", "mai-am-un-singur-dor.2", "--title", "prima"])
        #expect(try workspace.ok(["verify"]).hasPrefix(
            "ok: 1 change replays to 1 annotation and 0 reading positions\nhash chain holds: head seq 1, digest "))
        let archive = workspace.path("a.jsonl.gz")
        let exported = try workspace.run(["export", archive])
        #expect(exported.stderr == "Exported 1 change, 1 annotation and 0 reading positions to \(archive)\n")
        try workspace.ok(["edit", bookmark, "--title", "a doua"])
        let history = try workspace.ok(["history", bookmark])
        #expect(history.contains("title: «prima»\n") && history.contains("title: «prima» → «a doua»"))
        #expect(!history.contains("note"))
        #expect(try workspace.ok(["log"]).contains("title “a doua”"))
        #expect(try workspace.ok(["show", bookmark]).contains("title:       a doua"))
        let wrongField = try workspace.run(["edit", bookmark, "--note", "x"])
        #expect(wrongField.status == 64)
        #expect(wrongField.stderr.hasPrefix(
            "Error: \(bookmark.prefix(8)) is a bookmark, which has a title, not a note: use --title\n"))
        let highlight = try workspace.ok(["highlight", "mai-am-un-singur-dor.1"])
        let wrongKind = try workspace.run(["edit", highlight, "--title", "x"])
        #expect(wrongKind.status == 64 && wrongKind.stderr.contains("is a highlight, which has a note, not a title"))
    }

    @Test func logTakesLocalTimesWithAnOffsetAndSaysItPrintsUTC() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["highlight", "mai-am-un-singur-dor.1"])
        let changes = try #require(try workspace.run(["log", "--json"]).json() as? [[String: Any]])
        let time = try #require(changes.first?["time"] as? String)
        #expect(time.hasSuffix("Z"))
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let instant = try #require(parser.date(from: time))
        // The minute the change was made in, written as a local time two hours ahead of UTC, in three spellings.
        let minute = Date(timeIntervalSince1970: (instant.timeIntervalSince1970 / 60).rounded(.down) * 60)
        let local = DateFormatter()
        local.locale = Locale(identifier: "en_US_POSIX")
        local.timeZone = TimeZone(secondsFromGMT: 7200)
        local.dateFormat = "yyyy-MM-dd'T'HH:mm"
        let text = local.string(from: minute)
        for offset in ["+02:00", "+0200", "+02"] {
            let since = try #require(try workspace.run(["log", "--since", text + offset, "--json"]).json() as? [Any])
            #expect(since.count == 1, "\(text + offset)")
            let until = try #require(try workspace.run(["log", "--until", text + offset, "--json"]).json() as? [Any])
            #expect(until.isEmpty, "\(text + offset)")
        }
        let shifted = try workspace.run(["log", "--since", text + "-02:00", "--json"])
        #expect((try shifted.json() as? [Any])?.isEmpty == true)
        let help = try workspace.ok(["log", "--help"]).replacingOccurrences(of: "\n", with: " ")
        #expect(help.contains("Times are printed in UTC") && help.contains("2026-11-29T14:00+02:00"))
    }
}
