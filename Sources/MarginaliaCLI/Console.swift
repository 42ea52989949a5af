import Foundation

/// Where output goes: data to stdout, everything else to stderr.
struct Console {
    /// Writes a line of data to stdout.
    func out(_ text: String = "") {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Writes a line of messages (progress, warnings, errors) to stderr.
    func err(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Whether stderr is a terminal, so that progress is worth showing.
    var stderrIsTerminal: Bool { isatty(2) == 1 }
}
