import Foundation
import Marginalia

/// `import --format kindle|koreader|readwise|w3c`: other tools' files, beside Marginalia's own archive.
enum InteropCommands {
    /// The formats `import --format` names (the archive is Marginalia's own).
    static let importFormats = ["archive"] + InteropFormat.allCases.map(\.rawValue)
    /// The largest file of another tool that is read (it is read whole).
    static let maxInputBytes = 512 << 20

    /// The `import` options this file adds.
    static let importOptions: [CommandSpec.Option] = [
        .init(name: "format", value: "F",
              help: "archive (the default for gzip), kindle (My Clippings.txt), koreader (its exporter's JSON), "
                  + "readwise (its CSV) or w3c (Web Annotation JSON-LD); told from the content when omitted."),
        .init(name: "keep-unmatched",
              help: "Import the highlights of books the content does not hold, as orphans (else only counted)."),
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
        let bytes: [UInt8]
        if given == nil {
            // An archive is read by the archive reader, as a stream: only the first bytes tell the format. A file
            // that cannot be read is left to it too, which opens the store first and says what is wrong.
            if path == "-" {
                bytes = try readInput(path, limit: maxInputBytes)
            } else {
                guard let head = try? readInput(path, limit: 64 * 1024), InteropReader.detect(head) != nil else {
                    return false
                }
                bytes = head
            }
        } else {
            bytes = []
        }
        let data = given == nil && path == "-" ? bytes : try readInput(path, limit: maxInputBytes)
        guard let format = given.flatMap(InteropFormat.init(rawValue:)) ?? InteropReader.detect(data) else {
            throw UsageError("cannot tell the format of standard input; give --format "
                + "(an archive on standard input is not supported: name the file)")
        }
        let name = path == "-" ? "stdin" : path
        let items = try InteropReader.read(data, format: format, file: name)
        let options = InteropImportOptions(keepUnmatched: context.arguments.flag("keep-unmatched"),
                                           dryRun: context.arguments.flag("dry-run"))
        // Text formats are anchored by their text, so they need content; W3C annotations may carry their anchors.
        let use: ContentUse = format == .w3c ? .optional : .required
        let store = options.dryRun && !context.storeExists
            ? try context.openStoreIfPresent(content: use)
            : try context.openStore(.create, content: use)
        let report = try context.withProgress(on: store) {
            try store.importItems(items, format: format, options: options)
        }
        if context.json {
            try Output.print(json(report, dryRun: options.dryRun), to: context.console)
        } else {
            printReport(report, file: name, dryRun: options.dryRun, console: context.console)
        }
        return true
    }

    /// The bytes of FILE, or of standard input for `-`, at most `limit` of them (a longer file is refused unless
    /// only its first bytes are wanted for telling its format).
    static func readInput(_ path: String, limit: Int) throws -> [UInt8] {
        let handle: FileHandle
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            guard let opened = FileHandle(forReadingAtPath: path) else {
                throw ArchiveError(file: path, kind: .io, reason: FileManager.default.fileExists(atPath: path)
                    ? "cannot be read" : "no such file")
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
                    throw ArchiveError(file: path, kind: .tooLarge, reason: "is larger than \(maxInputBytes >> 20) MiB")
                }
                bytes.removeLast(bytes.count - limit)
            }
            return bytes
        } catch let error as ArchiveError {
            throw error
        } catch {
            throw ArchiveError(file: path == "-" ? "stdin" : path, kind: .io, reason: "cannot be read: \(error)")
        }
    }

    static func printReport(_ report: InteropImportReport, file: String, dryRun: Bool, console: Console) {
        let lead = dryRun ? "Would import" : "Imported"
        console.out("""
            \(lead) \(report.itemsRead) \(report.format.rawValue) items from \(file)
              annotations created: \(report.created) (\(report.anchored) anchored to the content, \
            \(report.orphaned) orphaned)
              updated:             \(report.updated)
              already here:        \(report.duplicates)
              notes on highlights: \(report.notesOnHighlights)
              resized highlights:  \(report.resized)
            """)
        if !report.unmatchedBooks.isEmpty {
            let what = report.keptUnmatched
                ? "imported as orphans" : "not imported; --keep-unmatched imports them as orphans"
            console.out("  books not in the content: \(report.unmatchedBooks.count) "
                + "(\(report.unmatchedItems) items, \(what))")
            for book in report.unmatchedBooks {
                console.out("    \(book.title)\(book.author.map { " (\($0))" } ?? ""): \(book.items)")
            }
        }
        if report.orphaned > 0 {
            console.out("  orphans keep their text, note, title and location: see 'marginalia list --status orphaned'")
        }
        if report.merge.quarantined > 0 {
            console.out("  held in quarantine:  \(report.merge.quarantined) changes (dated more than a day ahead of "
                + "this machine's clock; see 'marginalia quarantine')")
        }
        if dryRun { console.err("Dry run: nothing was written") }
    }

    static func json(_ report: InteropImportReport, dryRun: Bool) -> JSONValue {
        .object(JSONObject([
            ("format", .string(report.format.rawValue)), ("dryRun", .bool(dryRun)),
            ("itemsRead", .int(Int64(report.itemsRead))), ("created", .int(Int64(report.created))),
            ("anchored", .int(Int64(report.anchored))), ("orphaned", .int(Int64(report.orphaned))),
            ("updated", .int(Int64(report.updated))), ("duplicates", .int(Int64(report.duplicates))),
            ("notesOnHighlights", .int(Int64(report.notesOnHighlights))), ("resized", .int(Int64(report.resized))),
            ("unmatchedItems", .int(Int64(report.unmatchedItems))), ("keptUnmatched", .bool(report.keptUnmatched)),
            ("unmatchedBooks", .array(report.unmatchedBooks.map { book in
                .object(JSONObject([("title", .string(book.title)),
                                    ("author", book.author.map(JSONValue.string) ?? .null),
                                    ("items", .int(Int64(book.items)))]))
            })),
            ("changes", ArchiveCommands.importJSON(report.merge, dryRun: dryRun)),
        ]))
    }
}
