/// Where annotations sit in the content: an anchor resolved from a request (here), every anchor checked against the
/// attached edition and moved onto it (`+Reconcile`), and the edition a store was last reconciled with
/// (`+ReconciledContent`). It reads the content and the annotations through the connection it is given, and
/// records what it moves through the connection's local writes, as changes in the log.
struct Anchoring {
    /// The connection the anchors are read and recorded through.
    let store: StoreConnection

    var db: WriteBehindDatabase { store.db }

    /// Checks a request against the attached content and captures the quote, prefix and suffix.
    ///
    /// - Throws: `StoreError.passageNotFound`, `.invalidAnchor` (a range outside the passage, a quote not found
    ///   or found more than once), or `.contentUnavailable`.
    func resolveAnchor(_ request: AnchorRequest, kind: AnnotationKind) throws -> Anchor {
        let content = try store.requireContent()
        guard let first = try store.attached.passage(id: request.passage) else {
            throw StoreError.passageNotFound(id: request.passage)
        }
        if kind == .bookmark {
            let text = Array(first.text.unicodeScalars)
            return Anchor(
                document: first.document, start: TextPosition(passage: first.id, offset: 0),
                end: TextPosition(passage: first.id, offset: 0), quote: "", prefix: "",
                suffix: String(scalars: text.prefix(Anchor.contextLength)), edition: content.edition)
        }
        var span = [first]
        if let endID = request.endPassage, endID != first.id {
            guard let last = try store.attached.passage(id: endID) else { throw StoreError.passageNotFound(id: endID) }
            guard last.document == first.document else {
                throw StoreError.invalidAnchor(
                    reason: "\(endID) is in document \(last.document), not \(first.document) like \(first.id)")
            }
            guard last.order > first.order else {
                throw StoreError.invalidAnchor(
                    reason: "\(endID) comes before \(first.id); give the earlier passage first")
            }
            span = try store.attached.passages(document: first.document, from: first.order, through: last.order)
            // Read in three queries: a content file overwritten meanwhile can make them disagree.
            guard span.first?.id == first.id, span.last?.id == last.id else {
                throw ContentError.inconsistent(
                    path: content.path, reason: "the passages from \(first.id) to \(endID) no longer match")
            }
        }
        let joined = PassageSpan(span)
        let range = try request.quote.map { try joined.find(quote: $0, within: request) } ?? joined.range(for: request)
        guard !range.isEmpty else { throw StoreError.invalidAnchor(reason: "the range is empty") }
        let quote = joined.text(range)
        guard quote.utf8.count <= FieldLimits.maxTextBytes else {
            throw StoreError.invalidAnchor(reason: "the range is longer than \(FieldLimits.maxTextBytes) bytes")
        }
        let start = joined.position(ofStart: range.lowerBound)
        let end = joined.position(ofEnd: range.upperBound)
        return Anchor(
            document: first.document, start: start, end: end, quote: quote,
            prefix: joined.context(before: range.lowerBound), suffix: joined.context(after: range.upperBound),
            edition: content.edition)
    }
}
