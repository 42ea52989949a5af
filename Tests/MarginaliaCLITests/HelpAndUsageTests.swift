import Foundation
import Testing

@Suite struct HelpAndUsageTests {
    @Test func topLevelHelpListsEveryCommand() throws {
        let workspace = try CLIWorkspace(sample: nil)
        let result = try workspace.run(["--help"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        for section in ["OVERVIEW:", "USAGE:", "OPTIONS:", "SUBCOMMANDS:"] { #expect(result.stdout.contains(section)) }
        for command in ["init", "content build", "content info", "highlight", "note", "bookmark", "position", "edit",
                        "delete", "undelete", "list", "show", "search", "history", "log", "diff", "revert",
                        "verify", "anchors",
                        "reattach", "export", "import", "backup", "restore", "quarantine", "demo"] {
            #expect(result.stdout.contains("\n  \(command) "), "missing \(command)")
        }
    }

    @Test func everyCommandHasHelpInSections() throws {
        let workspace = try CLIWorkspace(sample: nil)
        for command in [["highlight"], ["content", "build"], ["log"], ["import"], ["diff"], ["revert"]] {
            let viaFlag = try workspace.run(command + ["--help"])
            let viaHelp = try workspace.run(["help"] + command)
            #expect(viaFlag.status == 0 && viaHelp.status == 0)
            #expect(viaFlag.stdout == viaHelp.stdout)
            #expect(viaFlag.stdout.hasPrefix("OVERVIEW: "))
            #expect(viaFlag.stdout.contains("USAGE: marginalia \(command.joined(separator: " "))"))
            #expect(viaFlag.stdout.contains("EXAMPLES:"))
        }
        let highlight = try workspace.run(["highlight", "-h"])
        #expect(highlight.stdout.contains("--quote TEXT"))
        #expect(highlight.stdout.contains("--tag T"))
    }

    @Test func versionPrintsAndExitsZero() throws {
        let result = try CLIWorkspace(sample: nil).run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("marginalia "))
    }

    @Test func usageErrorsExit64WithUsageOnStderr() throws {
        let workspace = try CLIWorkspace(sample: nil)
        let unknown = try workspace.run(["frobnicate"])
        #expect(unknown.status == 64)
        #expect(unknown.stdout.isEmpty)
        #expect(unknown.stderr.hasPrefix("Error: unknown command 'frobnicate'\n"))

        let option = try workspace.run(["list", "--colour", "red"])
        #expect(option.status == 64)
        #expect(option.stderr == """
            Error: unknown option '--colour'
            Usage: marginalia list [options]
            See 'marginalia list --help'.

            """)

        let missing = try workspace.run(["note", "luceafarul.1"])
        #expect(missing.status == 64)
        #expect(missing.stderr.hasPrefix("Error: missing TEXT (or --note-file FILE)\n"))

        let badRange = try workspace.run(["highlight", "luceafarul.1:9-3"])
        #expect(badRange.status == 64)
        #expect(badRange.stderr.hasPrefix("Error: 'luceafarul.1:9-3': the end offset 3 is before the start 9\n"))

        let badTime = try workspace.run(["log", "--since", "yesterday"])
        #expect(badTime.status == 64)
        #expect(badTime.stderr.contains("--since takes an ISO 8601 time"))

        let badQuery = try workspace.run(["search", "\"unclosed"])
        #expect(badQuery.status == 64)
        #expect(badQuery.stderr.hasPrefix("Error: cannot search for '\"unclosed': a quote (\") is not closed\n"))
    }

    @Test func optionsAcceptEqualsFormAndGlobalOptionsGoAnywhere() throws {
        let workspace = try CLIWorkspace()
        let id = try workspace.ok(["highlight", "mai-am-un-singur-dor.1", "--color=blue"])
        let before = try workspace.run(["--json", "show", id])
        let after = try workspace.run(["show", id, "--json"])
        #expect(before.status == 0 && before.stdout == after.stdout)
        let object = try #require(try after.json() as? [String: Any])
        #expect(object["color"] as? String == "blue")
        // `--` ends the options: a note may start with a dash.
        let note = try workspace.ok(["note", "mai-am-un-singur-dor.3", "--", "-- a dash first"])
        let shown = try #require(try workspace.run(["show", note, "--json"]).json() as? [String: Any])
        #expect(shown["note"] as? String == "-- a dash first")
    }
}
