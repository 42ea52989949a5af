import Foundation

// MARK: - Writing the report as HTML

extension AnnotationStore {
    /// Writes `report` as one self-contained HTML file, streamed: no network request, no other file, readable with
    /// JavaScript off. The file is written beside `path` and renamed into place; an existing file is replaced
    /// only with `force`.
    ///
    ///     try store.writeAuditReport(try store.auditReport(), toFile: "audit.html")
    /// - Throws: `MarginaliaError` when the file cannot be written or is refused (a store, a directory).
    @discardableResult
    public func writeAuditReport(_ report: AuditReport, toFile path: String, force: Bool = false,
                                 checkAnchors: Bool = true) throws -> AuditReportFiles {
        try engine.read { store in
            let target = try OutputTarget.resolve(path, policy: store.outputPolicy(force: force))
            let builder = try AuditReportBuilder(store: store, filter: report.filter)
            var documents = 0
            var changes = report.otherChanges.count
            let bytes = try target.write(purpose: "report") { temporary in
                let sink = FileSink(fileDescriptor: try temporary.openForWriting(), name: temporary.path,
                                    closesOnDeinit: true)
                let out = HTMLOutput(sink: sink)
                let html = AuditReportHTML(report: report, out: out)
                try html.open(title: "Marginalia audit report", sections: AuditReportPages.sections)
                try html.integrity()
                try html.activity()
                try html.outside()
                try html.otherChanges()
                try out.raw("<section id=\"documents\" aria-labelledby=\"documents-title\">\n<h2 id=\"documents-title\""
                    + ">Annotations by document</h2>\n")
                try builder.forEachDocument(checkAnchors: checkAnchors && store.content != nil) { document in
                    documents += 1
                    changes += document.changeCount
                    try html.document(document)
                }
                if documents == 0 { try out.raw("<p>No annotation changed in this report.</p>\n") }
                try out.raw("</section>\n")
                try html.close()
                try sink.close()
                return out.count
            }
            return AuditReportFiles(paths: [target.path], bytes: bytes, documents: documents, changes: changes)
        }
    }

    /// Writes `report` as a directory of pages: `index.html` (integrity, activity, what came from outside and a
    /// link to each document) and `document-N.html` per document, for a report too large for one file. The
    /// directory is made when missing; an existing page is replaced only with `force`.
    @discardableResult
    public func writeAuditReport(_ report: AuditReport, toDirectory directory: String, force: Bool = false,
                                 checkAnchors: Bool = true) throws -> AuditReportFiles {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw MarginaliaError(IOError(operation: "mkdir", path: directory, code: 0,
                                          message: "cannot make the directory"))
        }
        return try engine.read { store in
            let pages = AuditReportPages(store: store, report: report, directory: directory, force: force)
            return try pages.write(checkAnchors: checkAnchors && store.content != nil)
        }
    }
}
