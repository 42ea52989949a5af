/// An import of another tool's items, planned: the changes each annotation makes, and what the planning counted.
struct InteropImportPlan {
    var annotations: [PlannedAnnotation]
    var report: InteropImportReport
}

/// The changes one annotation of an import makes, and what became of its text.
struct PlannedAnnotation {
    var id: String
    var changes: [Change]
    /// Whether its anchor is an orphan's (its text was not placed in the content).
    var orphaned: Bool
}

extension StoreConnection {
    /// Anchors another tool's items to the attached content by their text and merges them, in one transaction: all
    /// of them or none, through the same merge and checks as an archive's changes.
    ///
    /// Items are grouped by book; a book whose title is neither the content's nor one of its documents' is counted
    /// in the report and left out, unless `options.keepUnmatched` (then its items are orphans). Each annotation's
    /// id and each change's id are derived from the source item, so importing the same file again adds nothing, and
    /// a file that grew adds only what is new. Items that carry their own anchor (`ImportItem.native`) need no
    /// content.
    /// - Throws: `StoreError.contentUnavailable` for foreign items without content; merge errors.
    /// - Parameter source: what the receipt of the new changes names (the file, its size and SHA-256 when known).
    func importItems(_ items: [ImportItem], format: InteropFormat, options: InteropImportOptions,
                     source: ReceiptSource = ReceiptSource(kind: .import)) throws -> InteropImportReport
    {
        try mergePlanned(try planImport(items, format: format, options: options), options: options, source: source)
    }

    /// Anchors the items to the attached content and turns them into the changes they make, without writing
    /// anything: the planning half of `importItems`, which a reader connection can do while writes go on (the
    /// changes and their ids are derived from the items alone, so planning twice gives the same changes).
    func planImport(_ items: [ImportItem], format: InteropFormat, options: InteropImportOptions) throws
        -> InteropImportPlan
    {
        var report = InteropImportReport(format: format)
        report.itemsRead = items.count
        report.keptUnmatched = options.keepUnmatched
        var planned: [PlannedAnnotation] = []
        var cache = PassageCache()
        var books: [(title: String, author: String?, items: [ImportItem])] = []
        for item in items {
            if let native = item.native {
                planned.append(try plan(native: native, item: item))
                continue
            }
            if let index = books.firstIndex(where: { $0.title == item.title && $0.author == item.author }) {
                books[index].items.append(item)
            } else {
                books.append((item.title, item.author, [item]))
            }
        }
        if !books.isEmpty { _ = try requireContent() }
        for book in books {
            var scope = try self.scope(ofBook: book.title, author: book.author)
            // A W3C target names its source by an IRI, not by a title: its texts are looked for in the whole content,
            // and the source is a book the content lacks only when none of them is found there (once or more).
            let byText = scope == nil && book.items.allSatisfy { $0.format == .w3c }
            if byText { scope = BookScope(documents: nil) }
            // Resized highlights and notes on highlights count only for a book that is imported.
            var grouping = InteropImportReport(format: format)
            let groups = ImportGrouping.groups(book.items, report: &grouping)
            var placements = try placeHighlights(of: groups, in: scope, cache: &cache)
            if byText && !placements.values.contains(where: \.isFound) {
                scope = nil
                placements = [:]
            }
            if scope == nil {
                report.unmatchedItems += book.items.count
                report.unmatchedBooks.append(UnmatchedBook(title: book.title, author: book.author,
                                                           items: book.items.count))
                guard options.keepUnmatched else { continue }
            }
            report.resized += grouping.resized
            report.notesOnHighlights += grouping.notesOnHighlights
            for group in groups { planned.append(try plan(group, scope: scope, placements: placements)) }
        }
        return InteropImportPlan(annotations: planned, report: report)
    }

    /// Merges a planned import in one transaction (the writing half of `importItems`): the changes the log holds
    /// already are counted as duplicates, the others merged.
    func mergePlanned(_ plan: InteropImportPlan, options: InteropImportOptions, source: ReceiptSource) throws
        -> InteropImportReport
    {
        var report = plan.report
        let planned = plan.annotations
        do {
            try batch {
                let known = try knownChangeIDs(planned.flatMap { $0.changes.map(\.changeID) })
                var fresh: [Change] = []
                for annotation in planned {
                    let new = annotation.changes.filter { !known.contains($0.changeID) }
                    if new.isEmpty {
                        report.duplicates += 1
                    } else if let create = annotation.changes.first, !known.contains(create.changeID) {
                        report.created += 1
                        if annotation.orphaned { report.orphaned += 1 } else { report.anchored += 1 }
                    } else {
                        report.updated += 1
                    }
                    fresh.append(contentsOf: new)
                }
                report.merge = try merge(fresh, source: source)
                report.merge.duplicates += planned.reduce(0) { $0 + $1.changes.count } - fresh.count
                report.merge.changesRead = planned.reduce(0) { $0 + $1.changes.count }
                if options.dryRun { throw InteropDryRun() }
            }
        } catch is InteropDryRun {
            return report
        }
        return report
    }

    /// The change ids of `ids` the log already holds.
    private func knownChangeIDs(_ ids: [String]) throws -> Set<String> {
        var known: Set<String> = []
        let list = try ProjectionCache.jsonList(ids)
        try db.forEachRow(
            sql: "SELECT change_id FROM changes WHERE change_id IN (SELECT value FROM json_each(?))",
            arguments: [list]
        ) { known.insert(try $0.string(0)) }
        return known
    }

    /// The create, reattach (resized) and edit (notes) changes of one foreign annotation.
    private func plan(_ group: ImportGroup, scope: BookScope?, placements: [PlacementKey: TextPlacement]) throws
        -> PlannedAnnotation
    {
        let first = group.first
        let format = first.format
        // The source's own id, when it gives one, tells apart two annotations of the same text (items of the
        // formats without ids derive theirs as they always have).
        let id = try DerivedIdentifiers.uuid([
            format.rawValue, first.title, first.author ?? "", first.kind.rawValue, first.location.label, first.text,
            first.kind == .highlight ? "" : first.note ?? "",
        ] + (first.sourceID.map { [$0] } ?? []))
        var orphaned = false
        func anchor(for item: ImportItem) throws -> Anchor {
            if item.kind == .highlight, case .anchored(let anchor)? = placements[PlacementKey(item)] {
                orphaned = false
                return anchor
            }
            orphaned = true
            return try orphanAnchor(for: item, scope: scope)
        }
        var fields = ChangeFields(kind: first.kind, anchor: try anchor(for: first))
        if first.kind != .highlight { fields.note = first.note }
        fields.color = first.color.flatMap(DerivedIdentifiers.label)
        for tag in first.tags.compactMap(DerivedIdentifiers.label).prefix(FieldLimits.maxTagsPerChange) {
            fields.tags[tag] = true
        }
        var clock = ImportClock()
        let device = DerivedIdentifiers.device(of: format)
        var changes = [Change(changeID: try DerivedIdentifiers.uuid([id, "create"]), hlc: clock.next(first.date),
                              device: device, entity: .annotation, entityID: id, operation: .create, fields: fields)]
        var later: [(date: Int64?, key: [String], operation: ChangeOperation, fields: ChangeFields)] = []
        for revision in group.revisions {
            later.append((revision.date, ["reattach", revision.location.label, revision.text], .reattach,
                          ChangeFields(anchor: try anchor(for: revision))))
        }
        for note in group.notes where first.kind == .highlight {
            later.append((note.date, ["edit", note.location.label, note.text], .edit, ChangeFields(note: note.text)))
        }
        // Stable: changes of the same moment keep the file's order.
        let ordered = later.enumerated()
            .sorted { ($0.element.date ?? 0, $0.offset) < ($1.element.date ?? 0, $1.offset) }.map(\.element)
        for change in ordered {
            changes.append(Change(changeID: try DerivedIdentifiers.uuid([id] + change.key),
                                  hlc: clock.next(change.date), device: device, entity: .annotation, entityID: id, operation: change.operation,
                                  fields: change.fields))
        }
        return PlannedAnnotation(id: id, changes: changes, orphaned: orphaned)
    }

    /// Places the text of every highlight of a book (and of its resized clippings) in the book's part of the
    /// content. A text found at several places is placed when exactly one of them lies, in reading order, between
    /// the places of the book's highlights just before and just after it by the source's locations.
    private func placeHighlights(of groups: [ImportGroup], in scope: BookScope?, cache: inout PassageCache) throws
        -> [PlacementKey: TextPlacement]
    {
        guard let scope else { return [:] }
        let items = groups.flatMap { [$0.first] + $0.revisions }.filter { $0.kind == .highlight }
        var placements: [PlacementKey: TextPlacement] = [:]
        for (index, item) in items.enumerated() where placements[PlacementKey(item)] == nil {
            try reportProgress("anchoring highlights", done: index, total: items.count, every: 50)
            placements[PlacementKey(item)] = try place(item.text, in: scope, cache: &cache)
        }
        var known: [(location: Int, order: [Int])] = []
        for item in items {
            guard let start = item.location.start, case .anchored(let anchor)? = placements[PlacementKey(item)] else {
                continue
            }
            known.append((start, try cache.readingOrder(of: anchor.start, in: anchor.document, store: self)))
        }
        for item in items {
            guard let start = item.location.start, case .ambiguous(let anchors)? = placements[PlacementKey(item)] else {
                continue
            }
            let before = known.filter { $0.location < start }.max { $0.location < $1.location }?.order
            let after = known.filter { $0.location > start }.min { $0.location < $1.location }?.order
            guard before != nil || after != nil else { continue }
            var fitting: [Anchor] = []
            for anchor in anchors {
                let order = try cache.readingOrder(of: anchor.start, in: anchor.document, store: self)
                if before.map({ !order.lexicographicallyPrecedes($0) }) ?? true,
                   after.map({ !$0.lexicographicallyPrecedes(order) }) ?? true {
                    fitting.append(anchor)
                }
            }
            if fitting.count == 1 { placements[PlacementKey(item)] = .anchored(fitting[0]) }
        }
        for item in items where item.prefix != nil || item.suffix != nil {
            guard case .ambiguous(let anchors)? = placements[PlacementKey(item)] else { continue }
            if let anchor = try byContext(anchors, prefix: item.prefix, suffix: item.suffix, cache: &cache) {
                placements[PlacementKey(item)] = .anchored(anchor)
            }
        }
        return placements
    }

    /// The one place of `anchors` whose text before and after, across passages, is the source's `prefix` and
    /// `suffix` (folded: case, diacritics, punctuation and spacing do not count); nil when not exactly one fits best.
    private func byContext(_ anchors: [Anchor], prefix: String?, suffix: String?, cache: inout PassageCache) throws
        -> Anchor?
    {
        func folded(_ text: String) -> String { FoldedText(text, level: .words).string }
        let before = prefix.map(folded)
        let after = suffix.map(folded)
        var scored: [(anchor: Anchor, score: Int)] = []
        for anchor in anchors {
            let passages = try cache.passages(of: anchor.document, in: self)
            guard let first = passages.firstIndex(where: { $0.id == anchor.start.passage }),
                  let last = passages.firstIndex(where: { $0.id == anchor.end.passage }) else { continue }
            var score = 0
            if let before, !before.isEmpty {
                let wanted = before.unicodeScalars.count + 1
                let head = passages[first].text.unicodeScalars.prefix(anchor.start.offset)
                var text = String(String.UnicodeScalarView(head))
                var index = first
                while text.unicodeScalars.count < wanted, index > 0 {
                    index -= 1
                    text = passages[index].text + "\n" + text
                }
                if folded(text).hasSuffix(before) { score += 1 }
            }
            if let after, !after.isEmpty {
                let wanted = after.unicodeScalars.count + 1
                let tail = passages[last].text.unicodeScalars.dropFirst(anchor.end.offset)
                var text = String(String.UnicodeScalarView(tail))
                var index = last
                while text.unicodeScalars.count < wanted, index < passages.count - 1 {
                    index += 1
                    text += "\n" + passages[index].text
                }
                if folded(text).hasPrefix(after) { score += 1 }
            }
            scored.append((anchor, score))
        }
        guard let best = scored.map(\.score).max(), best > 0 else { return nil }
        let fitting = scored.filter { $0.score == best }
        return fitting.count == 1 ? fitting[0].anchor : nil
    }

    /// The anchor of an item whose text is not placed: it keeps the text as its quote, and names the book and the
    /// source's location in its document and passage ids, which no content holds (so it is listed as orphaned
    /// until re-attached). In a book that is one document of the content, it is filed under that document.
    private func orphanAnchor(for item: ImportItem, scope: BookScope?) throws -> Anchor {
        let content = try requireContent()
        let book = item.author.map { "\(item.title) (\($0))" } ?? item.title
        let format = item.format.rawValue
        let passage = DerivedIdentifiers.identifier("\(format):\(item.location.label) of \(book)")
        var quote = item.text
        while quote.utf8.count > FieldLimits.maxTextBytes { quote.removeLast() }
        return Anchor(
            document: scope?.document ?? DerivedIdentifiers.identifier("\(format):\(book)"),
            start: TextPosition(passage: passage, offset: 0), end: TextPosition(passage: passage, offset: 0),
            quote: quote, prefix: "", suffix: "", edition: content.edition)
    }
}

/// A highlight's text at its place in the source: the same text highlighted at two places is two highlights.
struct PlacementKey: Hashable {
    let text: String
    let location: ItemLocation
    let prefix: String?
    let suffix: String?

    init(_ item: ImportItem) {
        text = item.text
        location = item.location
        prefix = item.prefix
        suffix = item.suffix
    }
}

extension TextPlacement {
    /// Whether the text is in the content, at one place or at several.
    var isFound: Bool {
        if case .unplaced = self { return false }
        return true
    }
}

/// Clocks for an imported annotation's changes: the source's dates, made strictly increasing (a change without a
/// date, or dated before the one it follows, comes just after it).
struct ImportClock {
    private var last: HLC?

    mutating func next(_ date: Int64?) -> HLC {
        let milliseconds = max(0, min(date ?? 0, HLC.maxMilliseconds))
        let hlc: HLC
        if let last, milliseconds <= last.milliseconds {
            hlc = last.counter < HLC.maxCounter
                ? HLC(milliseconds: last.milliseconds, counter: last.counter + 1)
                : HLC(milliseconds: last.milliseconds + 1, counter: 0)
        } else {
            hlc = HLC(milliseconds: milliseconds, counter: 0)
        }
        last = hlc
        return hlc
    }
}

/// Thrown to roll back a dry run once it has been counted.
private struct InteropDryRun: Error {}
