/// What a command accepts, from which its parser and its help text are both made.
struct CommandSpec: Sendable {
    /// An option: `--name VALUE` (or `--name=VALUE`), or a flag `--name`.
    struct Option: Sendable {
        let name: String
        var short: Character?
        /// The value's placeholder in help (`PATH`, `TEXT`); nil for a flag.
        var value: String?
        var help: String
        /// May be given more than once (`--tag a --tag b`).
        var repeatable = false
    }

    /// A positional argument.
    struct Argument: Sendable {
        let name: String
        var help: String
        var optional = false
        /// Takes every remaining positional (`TEXT...`).
        var variadic = false
    }

    /// The full command name, e.g. `content build`.
    let name: String
    /// One line: what the command does.
    let summary: String
    /// A longer explanation, for the OVERVIEW section.
    var discussion: String = ""
    var arguments: [Argument] = []
    var options: [Option] = []
    /// Lines of `marginalia …` examples.
    var examples: [String] = []
    /// Names and summaries of subcommands, for a command group.
    var subcommands: [(String, String)] = []

    /// The options every command accepts, before or after its name.
    static let globalOptions: [Option] = [
        Option(name: "store", value: "PATH",
               help: "The user store (default $MARGINALIA_STORE, else $XDG_DATA_HOME/marginalia/user.db, "
                   + "else ~/.local/share/marginalia/user.db)."),
        Option(name: "content", value: "PATH",
               help: "The content database (default $MARGINALIA_CONTENT, else the content the store was last "
                   + "re-anchored with, else the bundled sample, built on first use)."),
        Option(name: "json", help: "Print machine-readable JSON."),
        Option(name: "help", short: "h", help: "Show help for this command."),
    ]

    /// The usage line: `marginalia NAME [OPTIONS] ARGS`.
    var usage: String {
        var parts = name.isEmpty ? ["marginalia"] : ["marginalia", name]
        if !subcommands.isEmpty { parts.append("<subcommand>") }
        for argument in arguments {
            let shown = argument.variadic ? "\(argument.name)..." : argument.name
            parts.append(argument.optional ? "[\(shown)]" : shown)
        }
        if !options.isEmpty { parts.append("[options]") }
        return parts.joined(separator: " ")
    }

    func option(named name: String) -> Option? {
        (options + Self.globalOptions).first { $0.name == name }
    }

    func option(short: Character) -> Option? {
        (options + Self.globalOptions).first { $0.short == short }
    }
}
