/// A command line taken apart by a `CommandSpec`: positionals in order, options by name.
struct ParsedArguments {
    var positionals: [String] = []
    var values: [String: [String]] = [:]
    var flags: Set<String> = []

    /// Whether the flag `--name` was given.
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The value of `--name` (the last one when given more than once).
    func value(_ name: String) -> String? { values[name]?.last }

    /// Every value of a repeatable option, in order.
    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// The value of `--name` as a non-negative integer.
    func integer(_ name: String) throws -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), number >= 0 else {
            throw UsageError("--\(name) takes a whole number, not '\(text)'")
        }
        return number
    }

    /// The positional at `index`, or nil.
    func positional(_ index: Int) -> String? {
        index < positionals.count ? positionals[index] : nil
    }
}

/// A command line that does not fit the command: exit status 64, with the command's usage.
struct UsageError: Error, CustomStringConvertible {
    let message: String
    /// The command whose usage to show; set by the parser.
    var command: CommandSpec?

    init(_ message: String, command: CommandSpec? = nil) {
        self.message = message
        self.command = command
    }

    var description: String { message }
}

/// Parses `arguments` (the words after the command name) against `spec`.
///
/// Accepts `--opt value`, `--opt=value`, `-h`, and `--` to end options; the global options are accepted
/// anywhere. Refuses unknown options, missing values, values given to flags, and extra or missing positionals.
func parse(_ arguments: [String], for spec: CommandSpec) throws -> ParsedArguments {
    var parsed = ParsedArguments()
    var index = 0
    var optionsEnded = false
    func fail(_ message: String) -> UsageError { UsageError(message, command: spec) }
    while index < arguments.count {
        let word = arguments[index]
        index += 1
        if optionsEnded || word == "-" || !word.hasPrefix("-") {
            parsed.positionals.append(word)
            continue
        }
        if word == "--" {
            optionsEnded = true
            continue
        }
        let option: CommandSpec.Option
        var inlineValue: String?
        if word.hasPrefix("--") {
            let body = word.dropFirst(2)
            let name: Substring
            if let equals = body.firstIndex(of: "=") {
                name = body[..<equals]
                inlineValue = String(body[body.index(after: equals)...])
            } else {
                name = body
            }
            guard let found = spec.option(named: String(name)) else {
                let names = (spec.options + CommandSpec.globalOptions).map { "--" + $0.name }
                throw fail("unknown option '--\(name)'" + Suggestion.hint(for: "--\(name)", among: names))
            }
            option = found
        } else {
            guard word.count == 2, let letter = word.last, let found = spec.option(short: letter) else {
                // A negative number or a dash-led text is a positional only after `--`.
                throw fail("unknown option '\(word)' (put '--' before arguments that start with '-')")
            }
            option = found
        }
        guard let placeholder = option.value else {
            if inlineValue != nil { throw fail("--\(option.name) takes no value") }
            parsed.flags.insert(option.name)
            continue
        }
        let value: String
        if let inlineValue {
            value = inlineValue
        } else {
            guard index < arguments.count else { throw fail("--\(option.name) needs a value (\(placeholder))") }
            value = arguments[index]
            index += 1
        }
        if parsed.values[option.name] != nil && !option.repeatable {
            throw fail("--\(option.name) was given more than once")
        }
        parsed.values[option.name, default: []].append(value)
    }
    if parsed.flag("help") { return parsed }
    let required = spec.arguments.filter { !$0.optional }.count
    let variadic = spec.arguments.contains { $0.variadic }
    if parsed.positionals.count < required {
        let missing = spec.arguments[parsed.positionals.count]
        throw fail("missing \(missing.name)")
    }
    if !variadic && parsed.positionals.count > spec.arguments.count {
        throw fail("unexpected argument '\(parsed.positionals[spec.arguments.count])'")
    }
    return parsed
}
