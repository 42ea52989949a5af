import Foundation

/// One annotation an import makes: the item that began it, and the items that changed it later.
struct ImportGroup {
    /// The first clipping of it.
    var first: ImportItem
    /// Later clippings of the same highlight, resized, in file order.
    var revisions: [ImportItem] = []
    /// Notes made on it: their text, when, and where the source says they are.
    var notes: [(text: String, date: Int64?, location: ItemLocation)] = []

    /// The text as it stands after the last revision.
    var text: String { revisions.last?.text ?? first.text }
    /// Where it ends in the source's locations, after the last revision.
    var endLocation: Int? {
        let last = revisions.last ?? first
        return last.location.end ?? last.location.start
    }
}

/// Groups the items of one book into annotations: a highlight clipped again at the same start with a text that
/// contains the old one (or is contained in it) was resized, and is one annotation; a note whose location is where
/// a highlight ends is that highlight's note; the same clipping twice is one.
enum ImportGrouping {
    /// Each lookup goes through an index (by start, by end, by page, by what was seen), so that grouping takes
    /// time in proportion to the items, not to their square.
    static func groups(_ items: [ImportItem], report: inout InteropImportReport) -> [ImportGroup] {
        var groups: [ImportGroup] = []
        /// For each group, the index in `items` of its latest item: notes on a page attach to what came before.
        var latest: [Int] = []
        /// For each group, its text as it stands, folded.
        var foldedTexts: [String] = []
        var byStart: [String: [Int]] = [:]
        /// Highlights by where they end (an entry may be stale after a resize: checked on use).
        var byEnd: [Int: [Int]] = [:]
        /// Highlights with a page and no location, by page.
        var byPage: [String: [Int]] = [:]
        var seenNotes: Set<String> = []
        var seenBookmarks: Set<String> = []
        func folded(_ text: String) -> String { FoldedText(text, level: .words).string }
        func append(_ group: ImportGroup, at index: Int, folded text: String = "") {
            groups.append(group)
            latest.append(index)
            foldedTexts.append(text)
        }
        for (index, item) in items.enumerated() {
            switch item.kind {
            case .highlight:
                let text = folded(item.text)
                let place = startKey(item.location)
                if let place, let found = byStart[place]?.last(where: { group in
                    text.contains(foldedTexts[group]) || foldedTexts[group].contains(text)
                }) {
                    if foldedTexts[found] != text {
                        groups[found].revisions.append(item)
                        foldedTexts[found] = text
                        if let end = groups[found].endLocation { byEnd[end, default: []].append(found) }
                        report.resized += 1
                    }
                    latest[found] = index
                    if let note = item.note, addNote(note, of: item, to: &groups[found]) {
                        report.notesOnHighlights += 1
                    }
                    continue
                }
                var group = ImportGroup(first: item)
                // A note the source writes with its highlight (KOReader, Readwise, W3C) is a note on it too.
                if let note = item.note, addNote(note, of: item, to: &group) { report.notesOnHighlights += 1 }
                let number = groups.count
                if let place { byStart[place, default: []].append(number) }
                if let end = group.endLocation { byEnd[end, default: []].append(number) }
                if item.location.start == nil, let page = item.location.page { byPage[page, default: []].append(number) }
                append(group, at: index, folded: text)
            case .note:
                guard let note = item.note, !note.isEmpty else { continue }
                let target: Int?
                if let start = item.location.start {
                    target = byEnd[start]?.filter { groups[$0].endLocation == start }.max()
                } else if let page = item.location.page {
                    target = byPage[page]?.last { latest[$0] < index }
                } else {
                    target = nil
                }
                if let target {
                    if addNote(note, of: item, to: &groups[target]) { report.notesOnHighlights += 1 }
                    continue
                }
                guard seenNotes.insert("\(note)\u{1F}\(item.location.label)").inserted else { continue }
                append(ImportGroup(first: item), at: index)
            case .bookmark:
                guard seenBookmarks.insert("\(item.note ?? "")\u{1F}\(item.note == nil)\u{1F}\(item.location.label)")
                    .inserted else { continue }
                append(ImportGroup(first: item), at: index)
            }
        }
        return groups
    }

    /// Adds a note to a highlight; false when it is empty or the highlight has it already.
    @discardableResult
    private static func addNote(_ note: String, of item: ImportItem, to group: inout ImportGroup) -> Bool {
        guard !note.isEmpty, !group.notes.contains(where: { $0.text == note }) else { return false }
        group.notes.append((note, item.date, item.location))
        return true
    }

    /// Where a clipping starts, in the source's terms: its first location, else its page.
    private static func startKey(_ location: ItemLocation) -> String? {
        if let start = location.start { return "location \(start)" }
        return location.page.map { "page \($0)" }
    }
}
