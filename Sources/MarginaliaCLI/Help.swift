/// Help text for a command, in sections: OVERVIEW, USAGE, ARGUMENTS, OPTIONS, SUBCOMMANDS, EXAMPLES.
enum Help {
    static let width = 100

    static func text(for spec: CommandSpec) -> String {
        var lines: [String] = []
        lines.append("OVERVIEW: \(spec.summary)")
        if !spec.discussion.isEmpty {
            lines.append("")
            lines += spec.discussion.split(separator: "\n", omittingEmptySubsequences: false).flatMap {
                wrap(String($0), indent: 0)
            }
        }
        lines.append("")
        lines.append("USAGE: \(spec.usage)")
        if !spec.arguments.isEmpty {
            lines.append("")
            lines.append("ARGUMENTS:")
            for argument in spec.arguments {
                lines += row(argument.name, argument.help)
            }
        }
        lines.append("")
        lines.append("OPTIONS:")
        for option in spec.options + CommandSpec.globalOptions {
            var label = option.short.map { "-\($0), " } ?? ""
            label += "--\(option.name)"
            if let value = option.value { label += " \(value)" }
            lines += row(label, option.help + (option.repeatable ? " (repeatable)" : ""))
        }
        if !spec.subcommands.isEmpty {
            lines.append("")
            lines.append("SUBCOMMANDS:")
            for (name, summary) in spec.subcommands {
                lines += row(name, summary)
            }
        }
        if !spec.examples.isEmpty {
            lines.append("")
            lines.append("EXAMPLES:")
            lines += spec.examples.map { "  \($0)" }
        }
        let topic = spec.name.isEmpty ? "<command>" : spec.name + (spec.subcommands.isEmpty ? "" : " <subcommand>")
        if !spec.subcommands.isEmpty || spec.name.isEmpty {
            lines.append("")
            lines.append("  See 'marginalia help \(topic)' for detailed help.")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A label in a column of 28, its help wrapped beside it.
    private static func row(_ label: String, _ help: String) -> [String] {
        let column = 28
        let wrapped = wrap(help, indent: column)
        var first = "  " + label
        if first.count + 2 > column {
            return [first] + wrapped
        }
        first += String(repeating: " ", count: column - first.count)
        guard let head = wrapped.first else { return [first] }
        return [first + head.dropFirst(column)] + wrapped.dropFirst()
    }

    /// Words wrapped to `width`, each line indented by `indent` spaces.
    static func wrap(_ text: String, indent: Int) -> [String] {
        let pad = String(repeating: " ", count: indent)
        var lines: [String] = []
        var line = pad
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if line.count > indent && line.count + 1 + word.count > width {
                lines.append(line)
                line = pad
            }
            line += (line.count > indent ? " " : "") + word
        }
        lines.append(line)
        return lines
    }
}
