import Foundation
import Marginalia

/// `import --format kindle|koreader|readwise|w3c|csv`: other tools' files, beside Marginalia's own archive.
enum InteropCommands {
    /// The formats `import --format` names (the archive is Marginalia's own).
    static let importFormats = ["archive"] + InteropFormat.allCases.map(\.rawValue)
    /// The largest file of another tool that is read (it is read whole).
    static let maxInputBytes = 512 << 20

    /// The `import` options this file adds.
    static let importOptions: [CommandSpec.Option] = [
        .init(name: "format", value: "F",
              help: "archive (the default for gzip), kindle (My Clippings.txt), koreader (its exporter's JSON), "
                  + "readwise (its CSV), w3c (Web Annotation JSON-LD), calibre (its viewer's annotation export) or "
                  + "csv (Marginalia's own CSV); told from the content when omitted."),
        .init(name: "keep-unmatched",
              help: "Import the highlights of books the content does not hold, as orphans (else only counted)."),
        .init(name: "document", value: "DOC",
              help: "Take a book whose title matches no document of the content for DOC (else such a book is "
                  + "looked for by its texts)."),
    ]

    /// Runs `import` for another tool's file and returns true; returns false for an archive, which the caller
    /// imports (a given `--format archive`, or a file that is no other format).
    static func runImport(_ context: Context) throws -> Bool {
        let path = context.arguments.positionals[0]
        let given = context.arguments.value("format")
        if let given, !importFormats.contains(given) {
            throw UsageError("--format is \(importFormats.joined(separator: ", ")), not '\(given)'")
        }
        if given == "archive" { return false }
        if given == nil {
            // An archive is read by the archive reader, as a stream: only the first bytes tell the format, and they
            // are put back for it. A file that cannot be read is left to it too (it opens the store first and says
            // what is wrong), and so is a terminal on standard input (which it refuses).
            if path == "-" {
                guard isatty(STDIN_FILENO) == 0, InteropReader.detect(try peekStandardInput(64 * 1024)) != nil else {
                    return false
                }
            } else {
                guard let head = try? readInput(path, limit: 64 * 1024), InteropReader.detect(head) != nil else {
                    return false
                }
            }
        }
        let name = path == "-" ? "stdin" : path
        let format: InteropFormat
        // A fresh source of the file's bytes for each reading of it: a file in a format read in pieces is read from
        // disk twice and never held whole; standard input and the formats read whole are held in memory.
        let input: () throws -> any ByteSource
        if path != "-",
           let named = try given.flatMap(InteropFormat.init(rawValue:))
               ?? InteropReader.detect(readInput(path, limit: 64 * 1024)),
           InteropReader.streams(named)
        {
            format = named
            input = { try openFile(path) }
        } else {
            let data = try readInput(path, limit: maxInputBytes)
            guard let named = given.flatMap(InteropFormat.init(rawValue:)) ?? InteropReader.detect(data) else {
                throw UsageError("cannot tell the format of \(path == "-" ? "standard input" : path); give --format")
            }
            format = named
            input = { ByteArraySource(data) }
        }
        // Read once before the store is opened, so that a bad file is refused without touching it.
        try InteropReader.read(try input(), format: format, file: name) { _ in }
        let options = InteropImportOptions(keepUnmatched: context.arguments.flag("keep-unmatched"),
                                           dryRun: context.arguments.flag("dry-run"),
                                           document: context.arguments.value("document"))
        // Text formats are anchored by their text, so they need content; W3C annotations may carry their anchors.
        let use: ContentUse = [.w3c, .csv, .calibre].contains(format) ? .optional : .required
        let store = options.dryRun && !context.storeExists
            ? try context.openStoreIfPresent(content: use)
            : try context.openStore(.create, content: use)
        let report = try context.withProgress(on: store) {
            try store.importFile(from: try input(), name: name, format: format, options: options)
        }
        if context.json {
            try Output.print(json(report, dryRun: options.dryRun), to: context.console)
        } else {
            printReport(report, file: name, dryRun: options.dryRun, console: context.console)
        }
        return true
    }

    /// Reads up to `count` bytes of standard input and puts them back, so that whoever reads standard input next
    /// (`/dev/stdin` too) reads them again, then the rest: a file is sought back to where it was; a pipe is replaced
    /// by a new pipe that a thread fills with these bytes and then with the rest of the old one.
    static func peekStandardInput(_ count: Int) throws -> [UInt8] {
        let start = lseek(STDIN_FILENO, 0, SEEK_CUR)
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while head.count < count {
            let wanted = min(buffer.count, count - head.count)
            let got = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, wanted) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else {
                if got < 0 { throw ToolError("cannot read standard input: \(String(cString: strerror(errno)))") }
                break
            }
            head += buffer[0..<got]
        }
        // "If whence is SEEK_SET, the file offset shall be set to offset bytes"; on a pipe lseek fails with ESPIPE.
        // https://pubs.opengroup.org/onlinepubs/9699919799/functions/lseek.html
        if start >= 0 && lseek(STDIN_FILENO, start, SEEK_SET) == start { return head }
        var ends: [Int32] = [0, 0]
        let original = dup(STDIN_FILENO)
        guard original >= 0, pipe(&ends) == 0, dup2(ends[0], STDIN_FILENO) >= 0 else {
            throw ToolError("cannot read standard input again: \(String(cString: strerror(errno)))")
        }
        close(ends[0])
        let writer = ends[1]
        let prefix = head
        Thread.detachNewThread {
            var chunk = prefix
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            // Ends when the old input ends, or when the reader of the new pipe is gone (EPIPE: SIGPIPE is ignored).
            while Console.writeAll(chunk, to: writer) == 0 {
                let got = buffer.withUnsafeMutableBytes { read(original, $0.baseAddress, $0.count) }
                if got < 0 && errno == EINTR {
                    chunk = []
                    continue
                }
                guard got > 0 else { break }
                chunk = Array(buffer[0..<got])
            }
            close(writer)
            close(original)
        }
        return head
    }

    /// The file at `path`, to be read in pieces.
    private static func openFile(_ path: String) throws -> any ByteSource {
        do {
            return try FileSource(path: path)
        } catch {
            throw InputFileError(cannotOpen: path)
        }
    }

    /// The bytes of FILE, or of standard input for `-`, at most `limit` of them (a longer file is refused unless
    /// only its first bytes are wanted for telling its format).
    static func readInput(_ path: String, limit: Int) throws -> [UInt8] {
        let handle: FileHandle
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            guard let opened = FileHandle(forReadingAtPath: path) else {
                throw InputFileError(cannotOpen: path)
            }
            handle = opened
        }
        defer { if path != "-" { try? handle.close() } }
        do {
            var bytes: [UInt8] = []
            while bytes.count <= limit, let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                bytes.append(contentsOf: chunk)
            }
            if bytes.count > limit {
                guard limit < maxInputBytes else {
                    throw InputFileError(file: path, tooLarge: "is larger than \(maxInputBytes >> 20) MiB")
                }
                bytes.removeLast(bytes.count - limit)
            }
            return bytes
        } catch let error as InputFileError {
            throw error
        } catch {
            throw InputFileError(file: path == "-" ? "stdin" : path, unreadable: "cannot be read: \(error)")
        }
    }

    static func printReport(_ report: InteropImportReport, file: String, dryRun: Bool, console: Console) {
        // A file whose items all came to nothing (books the content lacks, all here already) was read, not
        // imported.
        let lead = dryRun ? "Would import" : report.created + report.updated + report.held == 0 ? "Read" : "Imported"
        console.out("""
            \(lead) \(Output.count(report.itemsRead, "\(report.format.rawValue) item")) from \(file)
              annotations created: \(report.created) (\(report.anchored) anchored to the content, \
            \(report.orphaned) orphaned)
              updated:             \(report.updated)
              already here:        \(report.duplicates)
              held (future-dated): \(report.held)
              notes on highlights: \(report.notesOnHighlights)
              resized highlights:  \(report.resized)
            """)
        for book in report.matchedBooks {
            let how = book.textsFound.map { found in
                "found by its text: \(found) of \(book.textsTried ?? 0) highlights tried are there"
            } ?? "as --document said"
            console.out("  book \(book.title)\(book.author.map { " (\($0))" } ?? "") is \(book.document) (\(how))")
        }
        if !report.unmatchedBooks.isEmpty {
            let what = report.keptUnmatched
                ? "imported as orphans" : "not imported; --keep-unmatched imports them as orphans"
            console.out("  books not in the content: \(report.unmatchedBooks.count) "
                + "(\(Output.count(report.unmatchedItems, "item")), \(what))")
            for book in report.unmatchedBooks {
                console.out("    \(book.title)\(book.author.map { " (\($0))" } ?? ""): \(book.items)"
                    + (book.closestDocument.map { "; closest document: \($0) (--document \($0) takes it for it)" } ?? ""))
            }
        }
        for orphan in report.orphans {
            console.out("  orphan at \(orphan.location) “\(orphan.text)”: \(orphan.reason)")
        }
        if report.orphaned > 0 {
            console.out("  orphans keep their text, note, title and location: see 'marginalia list --status orphaned'")
        }
        if report.merge.quarantined > 0 {
            console.out("  held in quarantine:  \(Output.count(report.merge.quarantined, "change")) (dated more than "
                + "a day ahead of this machine's clock; see 'marginalia quarantine')")
        }
        if dryRun { console.err("Dry run: nothing was written") }
    }

    static func json(_ report: InteropImportReport, dryRun: Bool) -> JSONValue {
        .object(JSONObject([
            ("format", .string(report.format.rawValue)), ("dryRun", .bool(dryRun)),
            ("itemsRead", .int(Int64(report.itemsRead))), ("created", .int(Int64(report.created))),
            ("anchored", .int(Int64(report.anchored))), ("orphaned", .int(Int64(report.orphaned))),
            ("updated", .int(Int64(report.updated))), ("duplicates", .int(Int64(report.duplicates))),
            ("held", .int(Int64(report.held))),
            ("matchedBooks", .array(report.matchedBooks.map { book in
                .object(JSONObject([("title", .string(book.title)), ("document", .string(book.document)),
                                    ("textsFound", book.textsFound.map { .int(Int64($0)) } ?? .null),
                                    ("textsTried", book.textsTried.map { .int(Int64($0)) } ?? .null)]))
            })),
            ("orphans", .array(report.orphans.map { orphan in
                .object(JSONObject([("location", .string(orphan.location)), ("text", .string(orphan.text)),
                                    ("reason", .string(orphan.reason))]))
            })),
            ("notesOnHighlights", .int(Int64(report.notesOnHighlights))), ("resized", .int(Int64(report.resized))),
            ("unmatchedItems", .int(Int64(report.unmatchedItems))), ("keptUnmatched", .bool(report.keptUnmatched)),
            ("unmatchedBooks", .array(report.unmatchedBooks.map { book in
                .object(JSONObject([("title", .string(book.title)),
                                    ("author", book.author.map(JSONValue.string) ?? .null),
                                    ("items", .int(Int64(book.items))),
                                    ("closestDocument", book.closestDocument.map(JSONValue.string) ?? .null)]))
            })),
            ("changes", ArchiveCommands.importJSON(report.merge, dryRun: dryRun)),
        ]))
    }
}
