import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A Markdown export a note app (Obsidian, Logseq) can keep: one file per document, `DOCUMENT.md`, in which
/// Marginalia writes only between its two marker lines; run again, it rewrites only the files whose annotations
/// changed, each annotation once with its latest text, deleted ones gone. What a person writes above or below the
/// section stays; a file of the same name without the markers is left alone.
///
///     notes of my own
///     <!-- marginalia:begin luceafarul (written by marginalia export; edits inside are replaced) -->
///     # Luceafărul
///     > A fost odată ca-n povești\
///     …
///     *2026-12-01T10:00:00.000Z* ^01a234f4-b489-7000-abdd-86c80467b31f
///     <!-- marginalia:end luceafarul -->
///     more notes of my own
enum MarkdownFolder {
    static func begin(_ document: String) -> String {
        "<!-- marginalia:begin \(document) (written by marginalia export; edits inside are replaced) -->"
    }

    static func end(_ document: String) -> String { "<!-- marginalia:end \(document) -->" }

    /// Writes `annotations` (live ones) into `directory`, creating it when absent.
    static func write(_ annotations: [Annotation], context: InteropExportContext, to directory: String) throws
        -> MarkdownFolderReport
    {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw IOError.posix("mkdir", path: directory) }
        var byDocument: [String: [Annotation]] = [:]
        for annotation in annotations { byDocument[annotation.anchor.document, default: []].append(annotation) }
        // Documents written before that have no annotations now: their sections are emptied.
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasSuffix(".md") {
            let document = String(name.dropLast(3))
            if byDocument[document] == nil, let text = try? String(contentsOfFile: "\(directory)/\(name)",
                                                                    encoding: .utf8),
               text.contains(begin(document)) {
                byDocument[document] = []
            }
        }
        var report = MarkdownFolderReport()
        for (document, here) in byDocument.sorted(by: { $0.key < $1.key }) {
            let name = fileName(document)
            let path = "\(directory)/\(name)"
            var section = "# \(MarkdownWriter.escape(context.title(of: document)))\n"
            let body = MarkdownWriter.sections(here, context: context, level: 2)
            section += body.isEmpty ? "\nNo annotations.\n" : body
            let block = begin(document) + "\n" + section + end(document) + "\n"
            let existing = try? String(contentsOfFile: path, encoding: .utf8)
            let text: String
            if let existing {
                guard let replaced = replacing(document, in: existing, with: block) else {
                    report.leftAlone.append(name)
                    continue
                }
                text = replaced
            } else {
                text = block
            }
            report.annotations += here.count
            if text == existing {
                report.unchanged.append(name)
                continue
            }
            let temporary = try TemporaryFile(beside: path, purpose: "export")
            let sink = FileSink(fileDescriptor: try temporary.openForWriting(), name: temporary.path,
                                closesOnDeinit: true)
            try Array(text.utf8).withUnsafeBytes { try sink.write($0) }
            try sink.close()
            try temporary.moveIntoPlace(at: path)
            report.written.append(name)
        }
        return report
    }

    /// `existing` with its section of `document` replaced by `block`; nil when it has none.
    private static func replacing(_ document: String, in existing: String, with block: String) -> String? {
        guard let start = existing.range(of: begin(document)),
              let finish = existing.range(of: end(document), range: start.upperBound..<existing.endIndex) else {
            return nil
        }
        var after = existing[finish.upperBound...]
        if after.hasPrefix("\n") { after = after.dropFirst() }
        return String(existing[..<start.lowerBound]) + block + after
    }

    /// The file of a document: its id, with `/` and characters a file system or a note app refuses replaced.
    static func fileName(_ document: String) -> String {
        let safe = String(document.unicodeScalars.map { scalar -> Character in
            "/\\:*?\"<>|#^[]".unicodeScalars.contains(scalar) || scalar.properties.generalCategory == .control
                ? "_" : Character(scalar)
        })
        return (safe.hasPrefix(".") ? "_" + safe.dropFirst() : safe) + ".md"
    }
}
