import Foundation
import Marginalia

/// Text and archives given as `-` (standard input) or as a file, instead of on the command line.
enum StandardInput {
    /// The path `import` reads for its FILE argument: `-` is standard input, read through `/dev/stdin` (the import
    /// reads, inflates and checks it whole into temporary staging before it locks the store, as it does a file);
    /// refused when standard input is a terminal, which cannot hold an archive.
    static func archivePath(_ argument: String) throws -> String {
        guard argument == "-" else { return argument }
        if isatty(STDIN_FILENO) == 1 {
            throw UsageError("'-' reads the archive from standard input, which is a terminal here; pipe one in, e.g. "
                + "'ssh laptop marginalia export - | marginalia import -', or name a FILE")
        }
        return "/dev/stdin"
    }

    /// The text of a note or title given as `text` (`-`: read standard input whole) or in `file`, at most one of
    /// them; nil when neither is given. One final line feed is dropped, as a file or `echo` ends with one.
    ///
    /// - Parameter what: the option or argument, for messages (`--note`, `TEXT`).
    static func text(_ text: String?, file: String?, what: String, fileOption: String, console: Console) throws
        -> String?
    {
        if text != nil && file != nil { throw UsageError("give \(what) or --\(fileOption), not both") }
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                let exists = FileManager.default.fileExists(atPath: file)
                let why = exists ? "permission denied or not a file" : "no such file"
                throw ToolError("cannot read \(file) (--\(fileOption)): \(why)")
            }
            return try decode(Array(data), source: file)
        }
        guard text == "-" else { return text }
        if isatty(STDIN_FILENO) == 1 {
            console.err("Reading \(what) from standard input; end it with Ctrl-D.")
        }
        return try decode(try readAll(), source: "standard input")
    }

    /// Every byte of standard input, refusing more than a note may hold (`FieldLimits.maxTextBytes`).
    private static func readAll() throws -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ToolError("cannot read standard input: \(String(cString: strerror(errno)))")
            }
            if count == 0 { return bytes }
            bytes += buffer[0..<count]
            if bytes.count > FieldLimits.maxTextBytes + 2 {
                throw InputError("standard input holds more than \(FieldLimits.maxTextBytes) bytes, the most a note "
                    + "or title may hold; nothing was written")
            }
        }
    }

    private static func decode(_ bytes: [UInt8], source: String) throws -> String {
        var bytes = bytes[...]
        if bytes.last == UInt8(ascii: "\n") { bytes = bytes.dropLast() }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw InputError("\(source) is not UTF-8 text; nothing was written")
        }
        return text
    }
}

/// Input given to a command that is not what it must be (invalid data, exit status 65): text that is not UTF-8, too
/// long.
struct InputError: CategorizedError, Equatable {
    let description: String

    var category: MarginaliaError.Category { .invalidData }

    init(_ description: String) {
        self.description = description
    }
}

/// A file a command reads whole before handing it to the library (an interop file, or standard input) that cannot
/// be read (I/O, exit 1) or is larger than the command reads (invalid data, 65).
struct InputFileError: CategorizedError, Equatable {
    let file: String
    let reason: String
    let isTooLarge: Bool

    init(file: String, unreadable reason: String) {
        self.file = file
        self.reason = reason
        isTooLarge = false
    }

    /// A file that could not be opened: missing, or there but not readable.
    init(cannotOpen path: String) {
        let exists = FileManager.default.fileExists(atPath: path)
        self.init(file: path, unreadable: exists ? "cannot be read" : "no such file")
    }

    init(file: String, tooLarge reason: String) {
        self.file = file
        self.reason = reason
        isTooLarge = true
    }

    var category: MarginaliaError.Category { isTooLarge ? .invalidData : .io }

    var facts: ErrorFacts { ErrorFacts(file: file) }

    var description: String { "\(file): \(reason)" }
}
