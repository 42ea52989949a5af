/// Annotations written out for another tool: read from the store with what the attached content says of them
/// (`InteropExportContext`), then rendered by the format's writer (`InteropWriter`) into a file.
struct InteropExporter {
    /// The connection the export reads through.
    let store: StoreReader

    /// The live annotations an export in `filter`'s scope holds (changed at or after `filter.since`), with what the
    /// attached content says of them.
    func items(filter: ExportFilter, includeDeleted: Bool = false) throws
        -> (annotations: [Annotation], context: InteropExportContext)
    {
        try store.db.transaction(.deferred) {
            var annotations = try store.annotations(
                matching: AnnotationFilter(document: filter.document, includeDeleted: includeDeleted))
            var context = InteropExportContext(exportedAt: store.clock.wallMilliseconds)
            let madeAt = ChangeLog.madeAt
            try store.db.forEachRow(sql: """
                SELECT entity_id, min(\(madeAt)) FILTER (WHERE op = 'create'), max(\(madeAt)) FROM changes
                WHERE entity = 'annotation' GROUP BY entity_id
                """) { row in
                let id = try row.string(0)
                let updated = try row.int64(2)
                context.madeAt[id] = (row.isNull(1) ? updated : try row.int64(1), updated)
            }
            if let since = filter.since { annotations = annotations.filter { context.updated($0) >= since } }
            guard let content = store.content else { return (annotations, context) }
            context.edition = content.edition
            context.contentTitle = content.title
            for document in try store.attached.documents() {
                context.titles[document.id] = document.title
                context.documentOrder[document.id] = document.order
            }
            for document in Set(annotations.map(\.anchor.document)) where context.titles[document] != nil {
                var start = 0
                for passage in try store.attached.passages(document: document) {
                    context.passageOrder[passage.id] = passage.order
                    context.passageStarts[passage.id] = start
                    start += passage.text.unicodeScalars.count + 1
                }
            }
            let checks = try store.anchoring.checkAnchors(annotations)
            context.orphaned = Set(checks.filter { $0.status == .orphaned }.map(\.annotation.id))
            return (annotations, context)
        }
    }

    /// Writes the annotations in `format` to `path` (through a temporary file, as an archive export is): the live
    /// ones, and the deleted ones too when the format carries them.
    func export(_ format: InteropExportFormat, toFile path: String, filter: ExportFilter, force: Bool) throws
        -> InteropExportReport
    {
        let (annotations, context) = try items(filter: filter, includeDeleted: format.carriesDeleted)
        let (bytes, report) = try InteropWriter.render(format, annotations, context: context)
        let target = try OutputTarget.resolve(path, policy: store.outputPolicy(force: force))
        try target.write(purpose: "export") { temporary in
            let sink = FileSink(fileDescriptor: try temporary.openForWriting(), name: temporary.path,
                                closesOnDeinit: true)
            try bytes.withUnsafeBytes { try sink.write($0) }
            try sink.close()
        }
        return report
    }
}
