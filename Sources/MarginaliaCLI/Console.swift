import Foundation
import Marginalia

/// Where output goes: data to stdout, everything else to stderr.
///
/// Both are written with write(2), whose errors are checked: a full disk or a closed pipe on stdout is recorded
/// (see `outputFailure`) and turned into exit status 74 by `Tool.run`, never a trap. SIGPIPE is ignored (see
/// `Tool.main`), so that a reader that went away is the error EPIPE rather than a signal that kills the process.
struct Console {
    /// Writes a line of data to stdout. After a failed write, later ones are skipped: the output is already
    /// incomplete, and the failure is reported once, when the command ends.
    func out(_ text: String = "") {
        guard Self.outputFailure.value == nil else { return }
        let error = Self.writeAll(Array((Self.shown(text) + "\n").utf8), to: STDOUT_FILENO)
        if error != 0 { Self.outputFailure.set(error) }
    }

    /// Writes a line of messages (progress, warnings, errors) to stderr.
    func err(_ text: String) {
        // Nothing can be reported about a failure to report; the exit status still tells.
        _ = Self.writeAll(Array((Self.shown(text) + "\n").utf8), to: STDERR_FILENO)
    }

    /// `text` with every control character but the line feed and the tab, and every bidirectional override or
    /// isolate, written out as `\u{…}`: a note, a
    /// title or a file name that came from another machine cannot move the cursor, recolour or retitle the
    /// terminal, or hide what is printed after it (ESC, BEL, CR, the C1 controls, DEL). JSON output has none
    /// left to escape: the JSON writer escapes them.
    ///
    /// The tool's own reverse video (`read` on a terminal) is written as `reverseVideoOn` and `reverseVideoOff`,
    /// which become the terminal's sequences only here, after the text's own control characters are escaped.
    static func shown(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { isHidden($0) || $0 == reverseOn || $0 == reverseOff }) else {
            return text
        }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == reverseOn {
                out.append(contentsOf: "\u{1B}[7m".unicodeScalars)
            } else if scalar == reverseOff {
                out.append(contentsOf: "\u{1B}[0m".unicodeScalars)
            } else if isHidden(scalar) {
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// Where the tool's reverse video starts and ends in a line (two code points of the private-use area, which
    /// no text of a book or a note means to print).
    static let reverseVideoOn = "\u{F8FE}"
    static let reverseVideoOff = "\u{F8FF}"
    private static let reverseOn: Unicode.Scalar = "\u{F8FE}"
    private static let reverseOff: Unicode.Scalar = "\u{F8FF}"

    private static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 && scalar != "\n" && scalar != "\t" || (0x7F...0x9F).contains(scalar.value)
            || isBidiControl(scalar)
    }

    /// The bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069): printed as they are,
    /// they reorder what the terminal shows after them, so that a note can make a line read otherwise than it is
    /// ("Trojan Source", CVE-2021-42574). The marks (U+200E, U+200F) reorder nothing beyond themselves and stay.
    static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }

    /// Writes text to stderr as it is, without a line feed (a progress line redrawn in place).
    func errRaw(_ text: String) {
        _ = Self.writeAll(Array(text.utf8), to: STDERR_FILENO)
    }

    /// Whether stderr is a terminal, so that progress is worth showing.
    var stderrIsTerminal: Bool { isatty(2) == 1 }

    /// The `errno` of the first failed write to stdout in this process, if any.
    static let outputFailure = FailureRecord()

    /// The message for a failed write to stdout with `errno` `code`.
    static func outputFailureMessage(_ code: Int32) -> String {
        "cannot write to standard output: \(String(cString: strerror(code))); the output is incomplete, but the "
            + "command ran to its end (any change it reported is saved)"
    }

    /// Writes every byte of `bytes` to `descriptor`, going on after partial writes and EINTR; returns 0, or the
    /// `errno` of the write that failed.
    ///
    /// "The write() function shall attempt to write nbyte bytes … [it] may write fewer bytes than requested"
    /// and "[EPIPE] An attempt is made to write to a pipe or FIFO that is not open for reading by any process"
    /// https://pubs.opengroup.org/onlinepubs/9699919799/functions/write.html
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32 {
        bytes.withUnsafeBytes { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return 0 }
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return 0
        }
    }
}

/// The first error recorded, safe to read and set from any thread.
final class FailureRecord: @unchecked Sendable {
    private let lock = NSLock()
    private var code: Int32?

    /// The recorded `errno`, if any.
    var value: Int32? { lock.withLock { code } }

    /// Records `error` unless one was recorded before.
    func set(_ error: Int32) {
        lock.withLock { if code == nil { code = error } }
    }
}

/// A progress line on stderr, redrawn in place at most ten times a second; only when stderr is a terminal.
///
/// Sendable because the store calls its handler on the thread doing the work; its state is behind a lock.
final class ProgressLine: @unchecked Sendable {
    private let lock = NSLock()
    private let console: Console
    private var lastDraw = Date.distantPast
    private var drawn = false

    init(console: Console) {
        self.console = console
    }

    /// The handler to give a long operation, or nil when stderr is not a terminal.
    var handler: ProgressHandler? {
        guard console.stderrIsTerminal else { return nil }
        return { [self] progress in
            lock.withLock { draw(progress) }
            return .proceed
        }
    }

    private func draw(_ progress: ProgressReport) {
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        var text = "\(progress.task): \(progress.done)"
        if let total = progress.total, total > 0 { text += " of \(total) (\(progress.done * 100 / total)%)" }
        console.errRaw("\r\u{1B}[K" + text)
        drawn = true
    }

    /// Clears the line, if anything was drawn.
    func finish() {
        lock.withLock {
            if drawn { console.errRaw("\r\u{1B}[K") }
            drawn = false
        }
    }
}
