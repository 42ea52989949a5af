// MARK: - Checking anchors

/// What re-anchoring would write, planned on one read snapshot: the checks, the changes, the log's newest clock
/// then, and the edition checked against.
struct ReanchoringPlan {
    var report: ReconciliationReport
    var writes: [(String, ChangeOperation, Anchor)]
    var seen: Int64?
    var edition: String
}

extension Anchoring {
    /// Checks every annotation (deleted ones too) against the attached edition; with `reanchor`, records each
    /// move as a `reanchor` change and each intact annotation not yet anchored on this edition as a `confirm`
    /// change, all in one transaction, and remembers the edition as reconciled. So every annotation records the
    /// edition it was last reconciled with (`anchor.edition`), and a second run writes nothing.
    ///
    /// The checks (reading the content, matching quotes) run on a read snapshot, without the write lock, so that
    /// other writers go on meanwhile; the write transaction only records the changes. Should another process have
    /// written in between, the checks are run again under the lock, so no change is based on a stale annotation.
    ///
    /// Without `reanchor` nothing is written. Nothing is ever deleted: orphans stay as they are.
    ///
    /// - Parameters:
    ///   - allowOlder: re-anchor even onto an edition older than one the annotations were reconciled with or
    ///     anchored on (see `EditionOrder`), or onto content that shares no passage with them.
    ///   - recordingPath: record the content's path with its edition (see `reconciledContent()`); false for
    ///     content found again by its edition alone, such as a bundled sample.
    /// - Throws: `ReanchorError` when re-anchoring onto this content is refused; nothing is written then.
    func reconcileAnchors(reanchor: Bool = false, allowOlder: Bool = false, recordingPath: Bool = true) throws
        -> ReconciliationReport
    {
        guard reanchor else { return try planReconciliation(reanchor: false).report }
        let planned = try db.transaction(.deferred) { try planReanchoring(allowOlder: allowOlder) }
        return try applyReanchoring(planned, allowOlder: allowOlder, recordingPath: recordingPath)
    }

    /// The checks and the changes re-anchoring would make, from one read snapshot (this connection's, or a
    /// reader's: the store runs it on a reader, so that writes go on meanwhile), and the log's newest clock then.
    func planReanchoring(allowOlder: Bool) throws -> ReanchoringPlan {
        let content = try store.requireContent()
        if !allowOlder { try checkReanchorTarget(content) }
        let (report, writes) = try planReconciliation(reanchor: true)
        return ReanchoringPlan(report: report, writes: writes, seen: try newestClock(), edition: content.edition)
    }

    /// Records a re-anchoring `plan` in one write transaction on this connection (the writer). Should anything
    /// have been written since the plan's snapshot, or other content be attached now, the checks are run again
    /// under the lock, so no change is based on a stale annotation.
    func applyReanchoring(_ plan: ReanchoringPlan, allowOlder: Bool, recordingPath: Bool) throws
        -> ReconciliationReport
    {
        let content = try store.requireContent()
        return try store.write { transaction in
            var planned = plan
            if try newestClock() != plan.seen || content.edition != plan.edition {
                planned = try planReanchoring(allowOlder: allowOlder)
            }
            for (id, operation, anchor) in planned.writes {
                try transaction.record(.annotation, id, operation, ChangeFields(anchor: anchor))
            }
            try recordReconciled(content, recordingPath: recordingPath)
            return planned.report
        }
    }

    /// The log's newest clock, packed (nil for an empty log): what a plan's snapshot saw.
    private func newestClock() throws -> Int64? {
        try db.int(sql: "SELECT max(hlc) FROM changes")
    }

    /// The checks of every annotation, and (with `reanchor`) the changes recording them would make.
    private func planReconciliation(reanchor: Bool) throws
        -> (report: ReconciliationReport, writes: [(String, ChangeOperation, Anchor)])
    {
        var report = ReconciliationReport(edition: store.content?.edition)
        var writes: [(String, ChangeOperation, Anchor)] = []
        var documents = DocumentCache()
        let annotations = try store.annotations(matching: AnnotationFilter(includeDeleted: true))
        for (index, annotation) in annotations.enumerated() {
            try store.reportProgress("checking anchors", done: index, total: annotations.count, every: 500)
            let check = try checkAnchor(annotation, documents: &documents)
            report.count(check.status)
            if check.status == .intact {
                if reanchor, let edition = report.edition, annotation.anchor.edition != edition {
                    var anchor = annotation.anchor
                    anchor.edition = edition
                    writes.append((annotation.id, .confirm, anchor))
                    report.confirmed += 1
                }
                continue
            }
            report.checks.append(check)
            if reanchor, check.status == .moved, let anchor = check.newAnchor {
                writes.append((annotation.id, .reanchor, anchor))
                report.reanchored += 1
            }
        }
        return (report, writes)
    }

    /// Checks some annotations against the attached edition (all `unchecked` without content).
    func checkAnchors(_ annotations: [Annotation]) throws -> [AnchorCheck] {
        var documents = DocumentCache()
        return try annotations.map { try checkAnchor($0, documents: &documents) }
    }

    /// The edition the store's annotations were last reconciled with, when it is not the attached one and some
    /// annotation was anchored on another edition: the cue to run `marginalia anchors`.
    func pendingReconciliation() throws -> String? {
        guard let content = store.content else { return nil }
        // A store restored from an archive (or that took another copy's re-anchoring by import) holds no record
        // of its own: the edition of the newest re-anchoring in its log stands for it, so that it does not warn
        // about an edition the store it came from never warned about.
        let reconciled = try db.text(sql: "SELECT value FROM meta WHERE key = 'reconciled_edition'")
            ?? db.text(sql: """
                SELECT json_extract(fields, '$.edition') FROM changes WHERE op IN ('reanchor', 'confirm')
                ORDER BY \(Change.reverseClockOrder) LIMIT 1
                """)
        guard reconciled != content.edition else { return nil }
        let other = try db.text(
            sql: "SELECT anchor_edition FROM annotations WHERE anchor_edition != ? LIMIT 1",
            arguments: [content.edition])
        return other.map { reconciled ?? $0 }
    }

    /// The edition `reconcileAnchors(reanchor: true)` last ran against, if ever.
    func reconciledEdition() throws -> String? {
        try db.text(sql: "SELECT value FROM meta WHERE key = 'reconciled_edition'")
    }

    /// Anchors an annotation again, by hand (a `reattach` change), wherever it stands now.
    @discardableResult
    func reattachAnnotation(id: String, at request: AnchorRequest) throws -> Annotation {
        let current = try store.annotation(id: id)
        let anchor = try resolveAnchor(request, kind: current.kind)
        return try store.write { transaction in
            try transaction.record(.annotation, current.id, .reattach, ChangeFields(anchor: anchor))
            return try store.annotation(id: current.id)
        }
    }

    private func checkAnchor(_ annotation: Annotation, documents: inout DocumentCache) throws -> AnchorCheck {
        guard let content = store.content else { return AnchorCheck(annotation: annotation, status: .unchecked) }
        let anchor = annotation.anchor
        func orphaned(_ reason: String) -> AnchorCheck {
            AnchorCheck(annotation: annotation, status: .orphaned, reason: reason)
        }
        let passages = try documents.passages(of: anchor.document, in: store)
        guard !passages.isEmpty else { return orphaned("document \(anchor.document) is gone") }
        guard let first = documents.index[anchor.start.passage] else {
            return orphaned("passage \(anchor.start.passage) is gone")
        }
        guard let last = documents.index[anchor.end.passage] else {
            return orphaned("passage \(anchor.end.passage) is gone")
        }
        if annotation.kind == .bookmark { return AnchorCheck(annotation: annotation, status: .intact) }
        let lower = max(0, first - 2)
        let upper = min(passages.count - 1, max(first, last) + 2)
        let window = PassageSpan(Array(passages[lower...upper]))
        let start = window.starts[first - lower] + min(anchor.start.offset, window.lengths[first - lower])
        let end = window.starts[last - lower] + min(anchor.end.offset, window.lengths[last - lower])
        if anchor.start.offset <= window.lengths[first - lower], anchor.end.offset <= window.lengths[last - lower],
           start < end, window.text(start..<end) == anchor.quote {
            return AnchorCheck(annotation: annotation, status: .intact)
        }
        let wholeWords = (start: !(anchor.prefix.unicodeScalars.last.map(\.isLetterDigitOrInWordMark) ?? false),
                          end: !(anchor.suffix.unicodeScalars.first.map(\.isLetterDigitOrInWordMark) ?? false))
        guard let match = AnchorMatcher.locate(anchor.quote, in: window.scalars, near: start, wholeWords: wholeWords),
              !match.range.isEmpty else {
            return orphaned("its text is no longer in \(anchor.start.passage) or the passages around it")
        }
        let newAnchor = Anchor(
            document: anchor.document, start: window.position(ofStart: match.range.lowerBound),
            end: window.position(ofEnd: match.range.upperBound), quote: window.text(match.range),
            prefix: window.context(before: match.range.lowerBound),
            suffix: window.context(after: match.range.upperBound),
            edition: content.edition)
        let how: String
        switch match.quality {
        case .exact: how = "exact"
        case .folded: how = "folded"
        case .close(let edits): how = "close, \(edits) edit\(edits == 1 ? "" : "s")"
        }
        return AnchorCheck(annotation: annotation, status: .moved, newAnchor: newAnchor, match: how)
    }
}

/// The passages of the document being checked, loaded once for all its annotations.
struct DocumentCache {
    private var document: String?
    private var loaded: [Passage] = []
    /// Passage id → position in `loaded`.
    private(set) var index: [String: Int] = [:]

    mutating func passages(of document: String, in store: StoreConnection) throws -> [Passage] {
        if document != self.document {
            self.document = document
            loaded = try store.attached.passages(document: document)
            index = try Self.index(of: loaded, path: store.content?.path ?? "the content")
        }
        return loaded
    }

    /// Passage id → position. A valid content database cannot hold a passage id twice (it is the primary key),
    /// but a file overwritten while it is read, or damaged, can: that is an error, never a trap.
    static func index(of passages: [Passage], path: String) throws -> [String: Int] {
        var index: [String: Int] = [:]
        index.reserveCapacity(passages.count)
        for (position, passage) in passages.enumerated() {
            guard index.updateValue(position, forKey: passage.id) == nil else {
                throw ContentError.inconsistent(
                    path: path, reason: "passage \(passage.id) appears twice in document \(passage.document)")
            }
        }
        return index
    }
}
