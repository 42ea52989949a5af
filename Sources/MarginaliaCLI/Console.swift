import Foundation
import Marginalia

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

/// A progress line on stderr, redrawn in place at most ten times a second; only when stderr is a terminal.
final class ProgressLine {
    private let console: Console
    private var lastDraw = Date.distantPast
    private var drawn = false

    init(console: Console) {
        self.console = console
    }

    /// The handler to give a long operation, or nil when stderr is not a terminal.
    var handler: ((ProgressReport) -> Void)? {
        guard console.stderrIsTerminal else { return nil }
        return { [self] progress in draw(progress) }
    }

    private func draw(_ progress: ProgressReport) {
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        var text = "\(progress.task): \(progress.done)"
        if let total = progress.total, total > 0 { text += " of \(total) (\(progress.done * 100 / total)%)" }
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + text).utf8))
        drawn = true
    }

    /// Clears the line, if anything was drawn.
    func finish() {
        if drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        drawn = false
    }
}
