/// Writes annotations as Markdown for people: per document (its title from the content), in reading order, each
/// highlight as a quote block with its note below, its tags and color and date; bookmarks as a list; orphans in
/// their own section with their last known text. Give it live annotations: it writes what it is given.
///
/// CommonMark throughout (https://spec.commonmark.org/): quote lines end with a backslash, a hard line break, so
/// that a poem keeps its lines on GitHub and in Obsidian alike; text that Markdown would read as markup is escaped
/// with backslashes. Each annotation ends with a block id derived from its id (`^` and the id, Obsidian's form of
/// a block reference), the same at every export, so that a note app's links to it survive a new export.
package enum MarkdownWriter {
    /// The Markdown text of `annotations`.
    package static func render(_ annotations: some Sequence<Annotation>, context: InteropExportContext) -> String {
        var out = "# \(escape(context.contentTitle.flatMap { $0.isEmpty ? nil : $0 } ?? "Annotations"))\n\n"
        out += "Exported from Marginalia on \(Timestamp.iso8601(milliseconds: context.exportedAt))"
        out += context.edition.map { " (content edition \(escape($0)))" } ?? ""
        out += ".\n"
        return out + sections(annotations, context: context, level: 2)
    }

    /// The documents' sections of `annotations` (headings at `level`), then their orphans'.
    static func sections(_ annotations: some Sequence<Annotation>, context: InteropExportContext, level: Int)
        -> String
    {
        let ordered = context.readingOrder(annotations)
        let heading = String(repeating: "#", count: level)
        var out = ""
        var documents: [String] = []
        for annotation in ordered where !documents.contains(annotation.anchor.document) {
            documents.append(annotation.anchor.document)
        }
        let orphans = ordered.filter { context.orphaned.contains($0.id) }
        for document in documents {
            let here = ordered.filter { $0.anchor.document == document && !context.orphaned.contains($0.id) }
            guard !here.isEmpty else { continue }
            out += "\n\(heading) \(escape(context.title(of: document)))\n"
            for annotation in here where annotation.kind != .bookmark {
                out += "\n" + block(annotation, context: context)
            }
            let bookmarks = here.filter { $0.kind == .bookmark }
            if !bookmarks.isEmpty {
                out += "\n\(heading)# Bookmarks\n\n"
                for bookmark in bookmarks {
                    let title = bookmark.note.map { escape(inline($0)) } ?? "Bookmark"
                    out += "- \(title) (passage `\(bookmark.anchor.start.passage)`, \(date(bookmark, context: context)))"
                        + " \(blockID(bookmark.id))\n"
                }
            }
        }
        if !orphans.isEmpty {
            out += "\n\(heading) Orphaned\n\nTheir text is no longer in the content; each keeps its last known text.\n"
            for orphan in orphans {
                out += "\n" + block(orphan, orphaned: true, context: context)
            }
        }
        return out
    }

    private static func block(_ annotation: Annotation, orphaned: Bool = false,
                              context: InteropExportContext) -> String {
        var out = ""
        let quote = annotation.anchor.quote
        if !quote.isEmpty {
            let lines = quote.split(separator: "\n", omittingEmptySubsequences: false).map { escape(String($0)) }
            out += lines.enumerated().map { "> \($0.element)\($0.offset < lines.count - 1 ? "\\" : "")" }
                .joined(separator: "\n") + "\n"
        }
        if let note = annotation.note, !note.isEmpty {
            if !out.isEmpty { out += "\n" }
            out += note.split(separator: "\n", omittingEmptySubsequences: false).map { escape(String($0)) }
                .joined(separator: "\\\n") + "\n"
        }
        var details: [String] = []
        if orphaned || annotation.kind != .highlight { details.append(annotation.kind.rawValue) }
        if let color = annotation.color { details.append("color: \(escape(color))") }
        if !annotation.tags.isEmpty { details.append(annotation.tags.map { tag(escape($0)) }.joined(separator: " ")) }
        details.append(date(annotation, context: context))
        if orphaned {
            details.append("was at `\(annotation.anchor.start.passage)` in \(escape(annotation.anchor.document))")
        }
        out += "\n*\(details.joined(separator: " · "))* \(blockID(annotation.id))\n"
        return out
    }

    /// The annotation's block id: `^` and its id, of the letters, digits and hyphens Obsidian allows in one.
    static func blockID(_ id: String) -> String {
        "^" + String(id.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || $0 == "-"
            || ("0"..."9").contains($0)) }.map(Character.init))
    }

    /// `#tag` when it is one word (Obsidian and others read it as a tag), else the tag in backticks.
    private static func tag(_ text: String) -> String {
        text.unicodeScalars.allSatisfy { $0.isLetterOrDigit || $0 == "-" || $0 == "_" || $0 == "/" || $0 == "\\" }
            ? "#\(text)" : "`\(text)`"
    }

    private static func date(_ annotation: Annotation, context: InteropExportContext) -> String {
        Timestamp.iso8601(milliseconds: context.created(annotation))
    }

    private static func inline(_ text: String) -> String { text.replacingOccurrences(of: "\n", with: " ") }

    /// Backslashes before what CommonMark could read as markup: inline marks anywhere, block marks at the start of a
    /// line ("Any ASCII punctuation character may be backslash-escaped", spec section 2.4).
    static func escape(_ text: String) -> String {
        var out = ""
        var atStart = true
        var leadingDigits = false
        for scalar in text.unicodeScalars {
            if "\\`*_[]<>|~".unicodeScalars.contains(scalar) {
                out.unicodeScalars.append("\\")
            } else if atStart && "#-+=".unicodeScalars.contains(scalar) {
                out.unicodeScalars.append("\\")
            } else if leadingDigits && (scalar == "." || scalar == ")") {
                out.unicodeScalars.append("\\")
            }
            leadingDigits = (atStart || leadingDigits) && scalar.properties.numericType == .decimal && scalar.isASCII
            atStart = atStart && scalar == " "
            out.unicodeScalars.append(scalar)
        }
        return out
    }
}
