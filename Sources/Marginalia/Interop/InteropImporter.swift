/// Another tool's annotations brought into a store: grouped by book, each book found in the attached content (by
/// its title, else by its text), each highlight placed in the content by its text (`+TextAnchoring`, `+Placement`)
/// or taken as it carries its own anchor (`+NativeItems`), then planned as changes and merged through the core's
/// merger in one transaction (`+Merge`): all of them or none, through the same merge and checks as an archive's
/// changes. Each annotation's id and each change's id are derived from the source item, so importing the same file
/// again adds nothing, and a file that grew adds only what is new. An adapter: it reads and writes the store only
/// through the connection's own operations.
///
/// Planning reads (a `StoreReader`, beside the app's writes); merging the plan writes (a `StoreWriter`).
struct InteropImporter<Store: StoreAccess> {
    /// The store the import runs on.
    let store: Store

    var db: WriteBehindDatabase { store.db }
}

extension InteropImporter {
    /// Anchors the items to the attached content and turns them into the changes they make, without writing
    /// anything: the planning half of an import (`mergePlanned` is the other), which a reader connection can do
    /// while writes go on (the changes and their ids are derived from the items alone, so planning twice gives the
    /// same changes). A book whose title is neither the content's nor one of its documents' is counted in the
    /// report and left out, unless `options.keepUnmatched` (then its items are orphans); items that carry their own
    /// anchor (`ImportItem.native`) need no content.
    /// - Throws: `StoreError.contentUnavailable` for foreign items without content.
    func planImport(_ items: [ImportItem], format: InteropFormat, options: InteropImportOptions) throws
        -> InteropImportPlan
    {
        try planImport(ImportBooks(items), format: format, options: options)
    }

    /// Plans the import of `books` as `planImport(_:format:options:)` does, one book at a time, into the books'
    /// scratch database.
    func planImport(_ books: ImportBooks, format: InteropFormat, options: InteropImportOptions) throws
        -> InteropImportPlan
    {
        var plan = InteropImportPlan(scratch: books.scratch, report: InteropImportReport(format: format))
        plan.report.itemsRead = books.itemCount
        plan.report.keptUnmatched = options.keepUnmatched
        var cache = PassageCache()
        for item in books.natives {
            if let native = item.native { try plan.append(try self.plan(native: native, item: item)) }
        }
        let first = try books.book(after: 0)
        if first != nil { _ = try store.requireContent() }
        if let document = options.document, try !store.attached.documents().contains(where: { $0.id == document }) {
            throw StoreError.documentNotFound(id: document)
        }
        var next = first
        while let book = next {
            try planBook(book, of: books, options: options, cache: &cache, into: &plan)
            next = try books.book(after: book.id)
        }
        return plan
    }

    /// Plans the annotations of one book, or counts it as a book the content lacks.
    private func planBook(_ book: ImportBooks.Book, of books: ImportBooks, options: InteropImportOptions,
                          cache: inout PassageCache, into plan: inout InteropImportPlan) throws
    {
        var scope = try self.scope(ofBook: book.title, author: book.author)
        let itemCount = try books.count(of: book)
        // Resized highlights and notes on highlights count only for a book that is imported.
        var grouping = InteropImportReport(format: plan.report.format)
        let (groups, allW3C) = try ImportGrouping.group(book, of: books, report: &grouping)
        // A W3C target names its source by an IRI, not by a title: its texts are looked for in the whole content,
        // and the source is a book the content lacks only when none of them is found there (once or more).
        let byText = scope == nil && allW3C
        if byText { scope = BookScope(documents: nil) }
        var closest: String?
        if scope == nil, let document = options.document {
            scope = BookScope(documents: [document])
            plan.report.matchedBooks.append(MatchedBook(title: book.title, author: book.author, document: document))
        } else if scope == nil {
            let guess = try bookByText(groups, cache: &cache)
            if let document = guess.document {
                scope = BookScope(documents: [document])
                plan.report.matchedBooks.append(MatchedBook(title: book.title, author: book.author,
                                                            document: document, textsFound: guess.found,
                                                            textsTried: guess.tried))
            }
            closest = guess.closest
        }
        var placements = try placeHighlights(of: groups, in: scope, cache: &cache)
        if byText, try !placements.anyFound() {
            scope = nil
            placements = try placeHighlights(of: groups, in: nil, cache: &cache)
        }
        if scope == nil {
            plan.report.unmatchedItems += itemCount
            plan.report.unmatchedBooks.append(UnmatchedBook(title: book.title, author: book.author,
                                                            items: itemCount, closestDocument: closest))
            guard options.keepUnmatched else { return }
        }
        plan.report.resized += grouping.resized
        plan.report.notesOnHighlights += grouping.notesOnHighlights
        try groups.forEachGroup { group in
            try plan.append(try self.plan(group, scope: scope, placements: placements))
        }
    }

    /// Which document a book whose title the content lacks is, by its highlights' texts: up to 40 of them (of a
    /// dozen letters or more, spread over the book) are looked for in the whole content. The document holding more
    /// than half of those tried is the book; else the one holding the most is only the closest.
    private func bookByText(_ groups: ImportGrouping, cache: inout PassageCache) throws
        -> (document: String?, closest: String?, found: Int, tried: Int)
    {
        var sample: [String] = []
        try groups.forEachSampleText { index, count, text in
            let step = max(1, count / 40)
            if index % step == 0 && sample.count < 40 { sample.append(text) }
        }
        var found: [String: Int] = [:]
        for text in sample {
            switch try place(text, in: BookScope(documents: nil), cache: &cache) {
            case .anchored(let anchor): found[anchor.document, default: 0] += 1
            case .ambiguous(let anchors) where Set(anchors.map(\.document)).count == 1:
                found[anchors[0].document, default: 0] += 1
            default: break
            }
        }
        guard let best = found.max(by: { ($0.value, $1.key) < ($1.value, $0.key) }) else {
            return (nil, nil, 0, sample.count)
        }
        return best.value * 2 > sample.count ? (best.key, nil, best.value, sample.count)
            : (nil, best.key, best.value, sample.count)
    }

    /// The create, reattach (resized) and edit (notes) changes of one foreign annotation.
    private func plan(_ group: ImportGroup, scope: BookScope?, placements: ImportPlacements) throws
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
        var orphan: ImportOrphan?
        func anchor(for item: ImportItem) throws -> Anchor {
            let placement = item.kind == .highlight ? try placements.placement(of: item) : nil
            if case .anchored(let anchor)? = placement {
                orphaned = false
                orphan = nil
                return anchor
            }
            orphaned = true
            let reason: String? = switch placement {
            case .ambiguous(let anchors)?: "found at \(anchors.count) places, none clearly where its location says"
            case .unplaced(let why)?: why
            default: nil
            }
            orphan = reason.map { ImportOrphan(location: item.location.label,
                                               text: String(item.text.prefix(60)), reason: $0) }
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
        // The item's own date, when the file gives one, is when the person made it; it is part of the file, so
        // the same file gives the same changes again.
        var changes = [Change(changeID: try DerivedIdentifiers.uuid([id, "create"]),
                              hlc: try clock.next(first.date, line: first.line), device: device, entity: .annotation,
                              entityID: id, operation: .create, fields: fields, wall: first.date)]
        var later: [(date: Int64?, line: Int, key: [String], operation: ChangeOperation, fields: ChangeFields)] = []
        for revision in group.revisions {
            later.append((revision.date, revision.line, ["reattach", revision.location.label, revision.text],
                          .reattach, ChangeFields(anchor: try anchor(for: revision))))
        }
        for note in group.notes where first.kind == .highlight {
            later.append((note.date, note.line, ["edit", note.location.label, note.text], .edit,
                          ChangeFields(note: note.text)))
        }
        // Stable: changes of the same moment keep the file's order.
        let ordered = later.enumerated()
            .sorted { ($0.element.date ?? 0, $0.offset) < ($1.element.date ?? 0, $1.offset) }.map(\.element)
        for change in ordered {
            changes.append(Change(changeID: try DerivedIdentifiers.uuid([id] + change.key),
                                  hlc: try clock.next(change.date, line: change.line), device: device,
                                  entity: .annotation, entityID: id, operation: change.operation,
                                  fields: change.fields, wall: change.date))
        }
        return PlannedAnnotation(id: id, changes: changes, orphaned: orphaned, orphan: orphan)
    }

    /// The anchor of an item whose text is not placed: it keeps the text as its quote, and names the book and the
    /// source's location in its document and passage ids, which no content holds (so it is listed as orphaned
    /// until re-attached). In a book that is one document of the content, it is filed under that document.
    private func orphanAnchor(for item: ImportItem, scope: BookScope?) throws -> Anchor {
        let content = try store.requireContent()
        let book = item.author.map { "\(item.title) (\($0))" } ?? item.title
        let format = item.format.rawValue
        let passage = DerivedIdentifiers.identifier("\(format):\(item.location.label) of \(book)")
        let quote = item.text
        guard quote.utf8.count <= FieldLimits.maxTextBytes else {
            throw StoreError.invalidChange(reason: "the item on line \(item.line) holds \(quote.utf8.count) bytes of "
                + "text; an annotation's text is at most \(FieldLimits.maxTextBytes) bytes: nothing was imported")
        }
        return Anchor(
            document: scope?.document ?? DerivedIdentifiers.identifier("\(format):\(book)"),
            start: TextPosition(passage: passage, offset: 0), end: TextPosition(passage: passage, offset: 0),
            quote: quote, prefix: "", suffix: "", edition: content.edition)
    }
}
