import Foundation
import Marginalia

/// A command: what it accepts and what it does.
struct Command: Sendable {
    let spec: CommandSpec
    let run: @Sendable (Context) throws -> Void
}

/// The `marginalia` tool: finds the command, parses its arguments, runs it, and maps errors to exit statuses.
@main
enum Tool {
    static let commands: [Command] = [
        InitCommand.command,
        ContentCommands.build, ContentCommands.info, ContentListCommands.documents, ContentListCommands.passages,
        ReadCommand.command,
        AnnotateCommands.highlight, AnnotateCommands.note, AnnotateCommands.bookmark,
        EditCommands.edit, EditCommands.delete, EditCommands.undelete,
        PositionCommand.command,
        ListCommands.list, ListCommands.show,
        SearchCommand.command,
        HistoryCommands.history, HistoryCommands.log, DiffCommand.command, RevertCommand.command,
        AnchorCommands.anchors, AnchorCommands.reattach,
        ArchiveCommands.export, ArchiveCommands.import, ArchiveCommands.backup, ArchiveCommands.restore,
        VerifyCommand.command,
        QuarantineCommand.command, ImportsCommand.command, ReportCommand.command,
        SyncCommand.command,
        DeviceCommands.show, DeviceCommands.name, DeviceCommands.list,
        RosterCommands.invite, RosterCommands.join, RosterCommands.revoke, RosterCommands.roster,
        KeyCommands.new, KeyCommands.show, RosterCommands.recovery,
        DemoCommand.command,
    ]

    /// Command groups, whose first word alone shows the group's help.
    static let groups: [String: CommandSpec] = [
        "content": CommandSpec(
            name: "content", summary: "Build and inspect content databases, and list their documents and passages.",
            subcommands: [ContentCommands.build, ContentCommands.info, ContentListCommands.documents,
                          ContentListCommands.passages].map { (String($0.spec.name.dropFirst(8)), $0.spec.summary) }),
        "key": CommandSpec(
            name: "key", summary: "Make and show the age identity that encrypted backups and sync are opened with.",
            subcommands: [KeyCommands.new, KeyCommands.show, RosterCommands.recovery].map {
                (String($0.spec.name.dropFirst(4)), $0.spec.summary)
            }),
    ]

    static let topSpec = CommandSpec(
        name: "",
        summary: "Keep a reader's highlights, notes, bookmarks and reading positions safe across content updates.",
        discussion: """
            Annotations live in a user store that no update touches; they refer to a read-only content database \
            by stable passage ids. Every change is kept in an append-only log.

            Exit status: 0 success, 64 a usage error, 65 input that does not fit (a damaged or newer file, an \
            anchor, id or key that does not fit), 74 output that could not be written to stdout, 75 the store \
            busy, 1 anything else (a missing store or annotation, a file not replaced without --force, I/O).
            """,
        subcommands: commands.map { ($0.spec.name, $0.spec.summary) })

    static func main() {
        // Ignored, so that writing to a pipe whose reader is gone fails with EPIPE (reported, exit 74) instead of
        // killing the process after a committed write: "[EPIPE] … A SIGPIPE signal shall also be sent to the
        // thread" https://pubs.opengroup.org/onlinepubs/9699919799/functions/write.html
        signal(SIGPIPE, SIG_IGN)
        Interruption.install()
        let status = run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
        Interruption.waitIfInterrupted()
        exit(status)
    }

    /// Runs one command line; returns the exit status: 74 when the command succeeded but its output could not be
    /// written to stdout (a full disk, a closed pipe). A reader that went away (`marginalia list | head -3`) is
    /// not an error to tell: the command ends quietly, as Unix tools do, with the status alone saying so.
    static func run(_ words: [String], environment: [String: String]) -> Int32 {
        let status = runCommand(words, environment: environment)
        guard let failure = Console.outputFailure.value else { return status }
        if failure != EPIPE { Console().err("Error: " + Console.outputFailureMessage(failure)) }
        return status == 0 ? 74 : status
    }

    private static func runCommand(_ words: [String], environment: [String: String]) -> Int32 {
        let console = Console()
        var spec = topSpec
        var context: Context?
        defer { context?.removeCreatedStore() }
        do {
            let (command, rest) = try find(words)
            guard let command else {
                if rest.contains("--version") {
                    console.out("marginalia \(Marginalia.version)")
                    return 0
                }
                let asksHelp = rest.contains("--help") || rest.contains("-h")
                if let name = rest.first, let group = groups[name] {
                    if rest.count > 1, !rest[1].hasPrefix("-") {
                        let subcommands = group.subcommands.map { "\(name) \($0.0)" }
                        throw UsageError("unknown command '\(name) \(rest[1])'"
                            + Suggestion.hint(for: "\(name) \(rest[1])", among: subcommands), command: group)
                    }
                    // Help asked for is output (stdout, exit 0); help for a command line that names no command is
                    // a usage error's (stderr, exit 64).
                    asksHelp ? console.out(Help.text(for: group)) : console.err(Help.text(for: group))
                    return asksHelp ? 0 : 64
                }
                if rest.isEmpty || asksHelp {
                    asksHelp ? console.out(Help.text(for: topSpec)) : console.err(Help.text(for: topSpec))
                    return asksHelp ? 0 : 64
                }
                if rest.first == "help" {
                    return help(Array(rest.dropFirst()), console: console)
                }
                let name = rest.first ?? ""
                throw UsageError("unknown command '\(name)'" + Suggestion.hint(for: name, among: commandWords))
            }
            spec = command.spec
            let parsed = try parse(rest, for: command.spec)
            if parsed.flag("help") {
                console.out(Help.text(for: command.spec))
                return 0
            }
            let running = Context(arguments: parsed, environment: environment)
            context = running
            let watch = BusyWatch(store: running.storePath, console: console)
            defer { watch.stop() }
            try command.run(running)
            Interruption.removeOnInterrupt(nil)
            running.reportClockWarnings()
            context = nil
            return 0
        } catch let error as UsageError {
            let shown = error.command ?? spec
            console.err("Error: \(error.message)")
            console.err("Usage: \(shown.usage)")
            console.err("See 'marginalia \(shown.name.isEmpty ? "" : shown.name + " ")--help'.")
            return 64
        } catch let error as MarginaliaError where error.category == .busy && context != nil {
            Interruption.waitIfInterrupted()
            // Every connection of a command waits Context.busySeconds for another one's lock first.
            let store = context?.storePath ?? ""
            let holder = BusyWatch.writer(of: store).map(BusyWatch.describe) ?? "another process (an import, a sync, "
                + "an app)"
            console.err("Error: the store \(store) is busy: \(holder) has held it for \(Context.busySeconds) s; "
                + "nothing was changed — try again when it is done")
            return 75
        } catch {
            Interruption.waitIfInterrupted()
            if let readOnly = readOnlyMessage(for: error, store: context?.storePath) {
                console.err("Error: " + readOnly)
            } else {
                console.err("Error: \(error)" + Advice.text(for: error, command: spec))
            }
            return ErrorTable.status(for: error)
        }
    }

    /// SQLite's "attempt to write a readonly database" in words: the store (or its directory) cannot be written,
    /// as on a read-only mount; nil for any other error.
    static func readOnlyMessage(for error: any Error, store: String?) -> String? {
        let underlying = (error as? MarginaliaError).map(\.underlyingError) ?? error
        // SQLITE_READONLY is 8; its extended codes keep it in the low byte. SQLITE_CANTOPEN (14) is what opening
        // a store in WAL mode for writing gives when its directory cannot be written (its -wal and -shm cannot be
        // made): told apart by asking the file system.
        guard let sqlite = underlying as? SQLiteError else { return nil }
        let code = sqlite.extendedCode & 0xFF
        let directory = store.map { ($0 as NSString).deletingLastPathComponent }.map { $0.isEmpty ? "." : $0 }
        let unwritable = directory.map { access($0, W_OK) != 0 } ?? false
        guard code == 8 || (code == 14 && unwritable) else { return nil }
        return "cannot write the store\(store.map { " \($0)" } ?? ""): the file or its directory is read-only (a "
            + "read-only mount, or no write permission); nothing was changed"
    }

    /// The first words of every command (and `help`), for suggestions.
    static var commandWords: [String] {
        var words: [String] = []
        for command in commands {
            let word = String(command.spec.name.prefix { $0 != " " })
            if !words.contains(word) { words.append(word) }
        }
        return words + ["help"]
    }

    /// The command a command line names and the words that follow its name; global options may come first.
    private static func find(_ words: [String]) throws -> (Command?, [String]) {
        var index = 0
        var leading: [String] = []
        // Skip global options (and their values) before the command name.
        while index < words.count, words[index].hasPrefix("-"), words[index] != "-" {
            let word = words[index]
            leading.append(word)
            index += 1
            let name = word.hasPrefix("--") ? String(word.dropFirst(2)) : ""
            if !name.contains("="), let option = CommandSpec.globalOptions.first(where: { $0.name == name }),
               option.value != nil, index < words.count {
                leading.append(words[index])
                index += 1
            }
        }
        guard index < words.count else { return (nil, leading) }
        let first = words[index]
        if index + 1 < words.count,
           let command = commands.first(where: { $0.spec.name == first + " " + words[index + 1] }) {
            return (command, leading + Array(words[(index + 2)...]))
        }
        if let command = commands.first(where: { $0.spec.name == first }) {
            return (command, leading + Array(words[(index + 1)...]))
        }
        return (nil, [first] + leading + Array(words[(index + 1)...]))
    }

    /// `marginalia help [command]`.
    private static func help(_ topic: [String], console: Console) -> Int32 {
        let name = topic.joined(separator: " ")
        if name.isEmpty {
            console.out(Help.text(for: topSpec))
        } else if let command = commands.first(where: { $0.spec.name == name }) {
            console.out(Help.text(for: command.spec))
        } else if let group = groups[name] {
            console.out(Help.text(for: group))
        } else {
            let names = commands.map(\.spec.name) + groups.keys.sorted()
            console.err("Error: no command '\(name)'" + Suggestion.hint(for: name, among: names))
            console.err("See 'marginalia --help'.")
            return 64
        }
        return 0
    }
}
