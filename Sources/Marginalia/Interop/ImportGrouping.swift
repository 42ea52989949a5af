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
    static func groups(_ items: [ImportItem], report: inout InteropImportReport) -> [ImportGroup] {
        var groups: [ImportGroup] = []
        /// For each group, the index in `items` of its latest item: notes on a page attach to what came before.
        var latest: [Int] = []
        func folded(_ text: String) -> String { FoldedText(text, level: .words).string }
        for (index, item) in items.enumerated() {
            switch item.kind {
            case .highlight:
                let text = folded(item.text)
                let place = startKey(item.location)
                if let place, let found = groups.lastIndex(where: { group in
                    guard startKey(group.first.location) == place else { return false }
                    let known = folded(group.text)
                    return text.contains(known) || known.contains(text)
                }) {
                    if folded(groups[found].text) != text {
                        groups[found].revisions.append(item)
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
                groups.append(group)
                latest.append(index)
            case .note:
                guard let note = item.note, !note.isEmpty else { continue }
                let target: Int?
                if let start = item.location.start {
                    target = groups.lastIndex { $0.first.kind == .highlight && $0.endLocation == start }
                } else if let page = item.location.page {
                    target = groups.indices.last { i in
                        groups[i].first.kind == .highlight && groups[i].first.location.start == nil
                            && groups[i].first.location.page == page && latest[i] < index
                    }
                } else {
                    target = nil
                }
                if let target {
                    if addNote(note, of: item, to: &groups[target]) { report.notesOnHighlights += 1 }
                    continue
                }
                if groups.contains(where: { $0.first.kind == .note && $0.first.note == note
                    && $0.first.location == item.location }) { continue }
                groups.append(ImportGroup(first: item))
                latest.append(index)
            case .bookmark:
                if groups.contains(where: { $0.first.kind == .bookmark && $0.first.location == item.location
                    && $0.first.note == item.note }) { continue }
                groups.append(ImportGroup(first: item))
                latest.append(index)
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
