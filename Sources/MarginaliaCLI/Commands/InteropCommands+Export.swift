import Foundation
import Marginalia

// MARK: - export --format

extension InteropCommands {
    /// The `export` option this file adds.
    static let exportOptions: [CommandSpec.Option] = [
        .init(name: "format", value: "F",
              help: "archive (the default), markdown (for people), w3c (Web Annotation JSON-LD), csv (Marginalia's "
                  + "own CSV: every annotation, deleted ones too; imports back exactly), readwise (Readwise's CSV "
                  + "import layout) or calibre (Calibre's annotation collection; imports back exactly)."),
    ]

    /// Runs `export --format markdown|w3c|csv|readwise` and returns true; returns false for an archive, which the caller
    /// writes.
    static func runExport(_ context: Context) throws -> Bool {
        guard let given = context.arguments.value("format"), given != "archive" else { return false }
        guard let format = InteropExportFormat(rawValue: given) else {
            let names = ["archive"] + InteropExportFormat.allCases.map(\.rawValue)
            throw UsageError("--format is \(names.joined(separator: ", ")), not '\(given)'")
        }
        let path = context.arguments.positionals[0]
        let filter = ExportFilter(
            document: context.arguments.value("document"),
            since: try HistoryCommands.time(context.arguments.value("since"), option: "since"))
        // Titles, reading order and orphans come from the content; without it, documents go by their ids.
        let store = try context.openStore(.readOnly, content: .optional)
        var isDirectory: ObjCBool = false
        if format == .markdown, path != "-",
           path.hasSuffix("/") || (FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
                                   && isDirectory.boolValue) {
            let folder = try store.exportMarkdown(toDirectory: path, filter: filter)
            context.console.err("Wrote \(Output.count(folder.written.count, "file")) in \(path) "
                + "(\(folder.unchanged.count) unchanged; \(Output.count(folder.annotations, "annotation")))")
            for name in folder.leftAlone {
                context.console.err("left alone: \(name) has no section of marginalia's (its markers); move it away "
                    + "to have it written")
            }
            return true
        }
        let report: InteropExportReport
        if path == "-" {
            let (annotations, exportContext) = try store.exportItems(filter: filter, for: format)
            var (bytes, written) = try InteropWriter.render(format, annotations, context: exportContext)
            // On a terminal the export is read, not kept: control and bidi characters of the notes are shown
            // escaped, never acted on (a redirect or pipe gets the bytes as they are).
            if isatty(STDOUT_FILENO) == 1 {
                bytes = Array(Console.shown(String(decoding: bytes, as: UTF8.self)
                    .replacingOccurrences(of: "\r\n", with: "\n")).utf8)
            }
            let error = Console.writeAll(bytes, to: STDOUT_FILENO)
            if error != 0 { Console.outputFailure.set(error) }
            report = written
        } else {
            report = try store.exportInterop(format, toFile: path, filter: filter,
                                             force: context.arguments.flag("force"))
        }
        var line = "Exported \(Output.count(report.written, "annotation")) as \(format.rawValue)"
            + "\(path == "-" ? "" : " to \(path)")"
        if report.leftOut > 0 {
            line += "; left out \(report.leftOut) that Readwise's layout cannot carry (bookmarks, notes without text)"
        }
        context.console.err(line)
        return true
    }
}
