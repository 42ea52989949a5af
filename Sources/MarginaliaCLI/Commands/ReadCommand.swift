import Foundation
import Marginalia

/// `read PASSAGE[..PASSAGE]`: the text, with the reader's highlights marked and their notes under it.
enum ReadCommand {
    static let command = Command(
        spec: CommandSpec(
            name: "read", summary: "Show passages with your highlights marked and your notes under them.",
            discussion: """
                Prints each passage of the range (both ends in one document) with the text of every highlight \
                and note in [brackets], and under it each annotation that starts there: kind, short id, quote, \
                color, tags, and the note or bookmark title in full. A moved annotation is marked where its \
                text is now; an orphaned one is listed, unmarked. On a terminal the marked text is also shown \
                in reverse video (not with NO_COLOR set); otherwise the output is the same bytes without color. \
                With --json, {document, title, passages: [{id, order, text, marks: [{start, end}], annotations}]}, \
                offsets in code points.
                """,
            arguments: [.init(name: "PASSAGE[..PASSAGE]|DOCUMENT",
                              help: "A passage id, the first and last of a range, or a document id (all of it).")],
            examples: ["marginalia read luceafarul.1", "marginalia read luceafarul.1..luceafarul.4 --json",
                       "marginalia read luceafarul"]),
        run: { context in
            let store = try context.openStoreIfPresent(content: .required)
            let passages = try range(context.arguments.positionals[0], in: store)
            guard let first = passages.first, let document = try store.document(id: first.document) else { return }
            let annotations = try store.annotations(matching: AnnotationFilter(document: document.id))
            let layout = Layout(passages: passages, document: try store.passages(document: document.id),
                                checks: try store.checkAnchors(annotations))
            if context.json {
                try Output.print(layout.json(document: document), to: context.console)
                return
            }
            let color = isatty(STDOUT_FILENO) == 1 && (context.environment["NO_COLOR"] ?? "").isEmpty
                && context.environment["TERM"] != "dumb"
            let ids = try ShortIDs(store, annotations: annotations.map(\.id))
            for line in layout.lines(document: document, color: color, ids: ids) { context.console.out(line) }
        })

    /// The passages `text` names: `P` or `P..Q`, both in one document, P not after Q, or a whole document.
    private static func range(_ text: String, in store: AnnotationStore) throws -> [Passage] {
        if try store.passage(id: text) == nil, try store.document(id: text) != nil {
            return try store.passages(document: text)
        }
        var ends = [text]
        if try store.passage(id: text) == nil, let dots = text.range(of: "..") {
            ends = [String(text[..<dots.lowerBound]), String(text[dots.upperBound...])]
        }
        let found = try ends.map { id -> Passage in
            guard !id.isEmpty else { throw UsageError("'\(text)': a range is PASSAGE..PASSAGE") }
            guard let passage = try store.passage(id: id) else { throw StoreError.passageNotFound(id: id) }
            return passage
        }
        let first = found[0]
        let last = found[found.count - 1]
        guard first.document == last.document else {
            throw UsageError("\(first.id) and \(last.id) are in different documents (\(first.document), "
                + "\(last.document)); read one document at a time")
        }
        guard first.order <= last.order else {
            throw UsageError("\(last.id) comes before \(first.id); give the range in reading order")
        }
        return try store.passages(document: first.document).filter { (first.order...last.order).contains($0.order) }
    }
}

/// Where each annotation falls in the passages being read.
private struct Layout {
    /// One passage and what is shown with it.
    struct Item {
        var passage: Passage
        /// Marked ranges of code points, merged where they touch or overlap.
        var marks: [Range<Int>] = []
        /// The annotations listed under the passage: those that start in it, or that began before the range and
        /// reach into it (under the first passage), and orphans whose old passage it is.
        var checks: [AnchorCheck] = []
    }

    var items: [Item]

    init(passages: [Passage], document: [Passage], checks: [AnchorCheck]) {
        var order: [String: Int] = [:]
        for passage in document { order[passage.id] = passage.order }
        items = passages.map { Item(passage: $0) }
        guard let firstOrder = passages.first?.order else { return }
        for check in checks {
            let anchor = check.status == .orphaned ? nil : check.newAnchor ?? check.annotation.anchor
            guard let anchor, let start = order[anchor.start.passage], let end = order[anchor.end.passage] else {
                // Orphaned, or anchored on passages this edition lacks: listed under its old passage, unmarked.
                if let index = items.firstIndex(where: { $0.passage.id == check.annotation.anchor.start.passage }) {
                    items[index].checks.append(check)
                }
                continue
            }
            var listed = false
            for index in items.indices {
                let passage = items[index].passage
                guard (start...end).contains(passage.order) else { continue }
                let length = passage.text.unicodeScalars.count
                let lower = passage.order == start ? min(anchor.start.offset, length) : 0
                let upper = passage.order == end ? min(anchor.end.offset, length) : length
                if lower < upper && check.annotation.kind != .bookmark { items[index].marks.append(lower..<upper) }
                if !listed && (passage.order == start || passage.order == firstOrder) {
                    items[index].checks.append(check)
                    listed = true
                }
            }
        }
        for index in items.indices { items[index].marks = Self.merged(items[index].marks) }
    }

    /// Ranges sorted and merged where they overlap or touch.
    static func merged(_ ranges: [Range<Int>]) -> [Range<Int>] {
        var result: [Range<Int>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = result.last, range.lowerBound <= last.upperBound {
                result[result.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                result.append(range)
            }
        }
        return result
    }

    func lines(document: ContentDocument, color: Bool, ids: ShortIDs) -> [String] {
        var lines: [String] = []
        if let first = items.first, let last = items.last {
            let span = first.passage.id == last.passage.id
                ? first.passage.id : "\(first.passage.id)..\(last.passage.id)"
            lines.append("\(document.title) (\(span))")
        }
        for item in items {
            lines.append("")
            lines.append(item.passage.id)
            let text = Self.marked(item.passage.text, item.marks, color: color)
            lines += text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
            for check in item.checks { lines += Self.describe(check, ids: ids) }
        }
        return lines
    }

    /// `text` with each range in brackets (and, with `color`, in reverse video inside them).
    static func marked(_ text: String, _ marks: [Range<Int>], color: Bool) -> String {
        let scalars = Array(text.unicodeScalars)
        var result = String.UnicodeScalarView()
        var position = 0
        func append(_ piece: String) { result.append(contentsOf: piece.unicodeScalars) }
        for mark in marks {
            result.append(contentsOf: scalars[position..<mark.lowerBound])
            append(color ? "[" + Console.reverseVideoOn : "[")
            result.append(contentsOf: scalars[mark])
            append(color ? Console.reverseVideoOff + "]" : "]")
            position = mark.upperBound
        }
        result.append(contentsOf: scalars[position...])
        return String(result)
    }

    /// The lines under a passage for one annotation.
    static func describe(_ check: AnchorCheck, ids: ShortIDs) -> [String] {
        let annotation = check.annotation
        var head = "  - \(annotation.kind.rawValue) \(ids(annotation.id, .annotation))"
        let quote = check.newAnchor?.quote ?? annotation.anchor.quote
        if annotation.kind != .bookmark && !quote.isEmpty { head += " “\(Output.excerpt(quote, limit: 50))”" }
        var details: [String] = []
        if let color = annotation.color { details.append(color) }
        if !annotation.tags.isEmpty { details.append(annotation.tags.map { "#" + $0 }.joined(separator: " ")) }
        if check.status == .moved { details.append("moved") }
        if check.status == .orphaned { details.append("orphaned: not in this edition") }
        if !details.isEmpty { head += " (" + details.joined(separator: ", ") + ")" }
        guard let note = annotation.note else { return [head] }
        let label = annotation.kind == .bookmark ? "title" : "note"
        let noteLines = note.split(separator: "\n", omittingEmptySubsequences: false)
        return [head, "    \(label): " + (noteLines.first ?? "")] + noteLines.dropFirst().map { "      " + $0 }
    }

    func json(document: ContentDocument) -> JSONValue {
        .object(JSONObject([
            ("document", .string(document.id)), ("title", .string(document.title)),
            ("passages", .array(items.map { item in
                .object(JSONObject([
                    ("id", .string(item.passage.id)), ("order", .int(Int64(item.passage.order))),
                    ("text", .string(item.passage.text)),
                    ("marks", .array(item.marks.map { mark in
                        .object(JSONObject([("start", .int(Int64(mark.lowerBound))),
                                            ("end", .int(Int64(mark.upperBound)))]))
                    })),
                    ("annotations", .array(item.checks.map(Output.json))),
                ]))
            })),
        ]))
    }
}
