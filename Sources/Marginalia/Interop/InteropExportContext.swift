/// What the writers need to know of the content besides the annotations: titles, reading order, orphans. The
/// exporter makes it from the attached content (`InteropExporter.items(filter:includeDeleted:)`); without content,
/// documents are named by their ids and kept in id order.
package struct InteropExportContext: Sendable {
    /// The attached content's edition, if any.
    package var edition: String?
    /// The content's title (the book), if known.
    package var contentTitle: String?
    /// Document id → title.
    package var titles: [String: String]
    /// Document id → position in the content.
    package var documentOrder: [String: Int]
    /// Passage id → position in its document.
    package var passageOrder: [String: Int]
    /// Passage id → where it starts in its document's text (passages joined by a line feed), in code points.
    package var passageStarts: [String: Int]
    /// Ids of annotations whose text is not in the attached content.
    package var orphaned: Set<String>
    /// When the export was made, in milliseconds since 1970.
    package var exportedAt: Int64
    /// Annotation id → when it was made and when it was last changed (milliseconds since 1970), by the clocks of
    /// the machines that made those changes (`Change.madeAt`); an annotation not here is dated by its clocks.
    package var madeAt: [String: (created: Int64, updated: Int64)] = [:]

    /// A context with the given values; empty ones for an export without content.
    package init(edition: String? = nil, contentTitle: String? = nil, titles: [String: String] = [:],
                documentOrder: [String: Int] = [:], passageOrder: [String: Int] = [:],
                passageStarts: [String: Int] = [:], orphaned: Set<String> = [], exportedAt: Int64 = 0) {
        self.edition = edition
        self.contentTitle = contentTitle
        self.titles = titles
        self.documentOrder = documentOrder
        self.passageOrder = passageOrder
        self.passageStarts = passageStarts
        self.orphaned = orphaned
        self.exportedAt = exportedAt
    }

    /// A document's title, else its id.
    package func title(of document: String) -> String { titles[document] ?? document }

    /// When `annotation` was made, in milliseconds since 1970: what an export calls its creation time.
    package func created(_ annotation: Annotation) -> Int64 {
        madeAt[annotation.id]?.created ?? annotation.createdAt.milliseconds
    }

    /// When `annotation` was last changed, in milliseconds since 1970.
    package func updated(_ annotation: Annotation) -> Int64 {
        madeAt[annotation.id]?.updated ?? annotation.updatedAt.milliseconds
    }

    /// `annotations` in reading order: by document, passage and offset; unknown documents and passages after the
    /// known ones, by id.
    package func readingOrder(_ annotations: some Sequence<Annotation>) -> [Annotation] {
        annotations.sorted { left, right in
            let l = key(left)
            let r = key(right)
            return l.0 != r.0 ? l.0 < r.0 : l.1 != r.1 ? l.1 < r.1 : l.2 != r.2 ? l.2 < r.2
                : l.3 != r.3 ? l.3 < r.3 : left.id < right.id
        }
    }

    private func key(_ annotation: Annotation) -> (Int, String, Int, Int) {
        let anchor = annotation.anchor
        return (documentOrder[anchor.document] ?? Int.max, documentOrder[anchor.document] == nil ? anchor.document : "",
                passageOrder[anchor.start.passage] ?? Int.max, anchor.start.offset)
    }
}

/// The writers, by format.
package enum InteropWriter {
    /// The annotations in `format`, as UTF-8 bytes, and how many of them it wrote and left out.
    package static func render(_ format: InteropExportFormat, _ annotations: some Collection<Annotation>,
                              context: InteropExportContext) throws -> (bytes: [UInt8], report: InteropExportReport) {
        let text: String
        var written = annotations.count
        switch format {
        case .markdown: text = MarkdownWriter.render(annotations, context: context)
        case .csv: text = try MarginaliaCSV.render(annotations, context: context)
        case .w3c: text = try WebAnnotationWriter.render(annotations, context: context)
        case .readwise: (text, written) = ReadwiseCSVWriter.render(annotations, context: context)
        case .calibre: text = try CalibreAnnotations.render(annotations, context: context)
        }
        return (Array(text.utf8), InteropExportReport(written: written, leftOut: annotations.count - written))
    }
}
