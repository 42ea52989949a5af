import Foundation

// MARK: - Writing the report as HTML

extension AnnotationStore {
    /// Makes the report of `filter` and writes it as one self-contained HTML file, as `auditReport` and
    /// `writeAuditReport(_:toFile:)` together would, reading the log once where it can: the documents are read and
    /// written to a scratch file beside `path` while the pass feeds verify's replay of the annotations and verify's
    /// other checks run on a connection of their own (`AuditVerification`); the page is then put together in
    /// order, integrity first. The verdict is `verify()`'s.
    ///
    ///     let (report, files) = try store.writeAuditReport(AuditFilter(), toFile: "audit.html")
    /// - Parameter maxBytes: the largest page written; a larger one is not written, and
    ///   `AuditReportTooLarge` says its size (`writeAuditReport(_:toDirectory:)` writes it as pages).
    /// - Throws: `MarginaliaError`, as `auditReport` and `writeAuditReport(_:toFile:)` do.
    @discardableResult
    public func writeAuditReport(_ filter: AuditFilter, against backup: String? = nil, key: AgeKey? = nil,
                                 toFile path: String, force: Bool = false, checkAnchors: Bool = true,
                                 maxBytes: Int? = nil) throws -> (report: AuditReport, files: AuditReportFiles)
    {
        var verification = AuditVerification(store: self, filter: filter, against: backup, key: key)
        let target = try engine.reading { try OutputTarget.resolve(path, policy: $0.outputPolicy(force: force)) }
        let scratch = try TemporaryFile(beside: target.path, purpose: "report-documents")
        defer { scratch.remove() }
        var documents = 0
        var changes = 0
        // The summary and the documents are read in one transaction; the verification is waited for outside it,
        // so that a store whose reads share one connection (in memory) is never waited on while held.
        var (report, documentBytes) = try engine.reading { store in
            let report = try summary(store, filter, verification: VerificationReport(), backup: backup)
            let sink = FileSink(fileDescriptor: try scratch.openForWriting(), name: scratch.path, closesOnDeinit: true)
            let out = HTMLOutput(sink: sink)
            let html = AuditReportHTML(report: report, out: out)
            try documentPass(store, filter, checkAnchors: checkAnchors, verification: &verification) { document in
                documents += 1
                changes += document.changeCount
                try html.document(document)
            }
            try out.flush()
            try sink.close()
            return (report, out.count)
        }
        // The documents are most of the page: a page whose documents alone pass the limit is not put together.
        if let maxBytes, documentBytes > maxBytes {
            throw MarginaliaError(AuditReportTooLarge(path: path, bytes: documentBytes, limit: maxBytes))
        }
        report.verification = try verification.verdict()
        let bytes = try AuditReportPage(report: report, target: target).write(maxBytes: maxBytes) { out in
            try out.copy(from: FileSource(path: scratch.path))
            return documents
        }
        let files = AuditReportFiles(paths: [target.path], bytes: bytes, documents: documents,
                                     changes: changes + report.otherChanges.count)
        return (report, files)
    }

    /// The report's one pass over the documents, feeding `verification`'s replay when its plan shares the pass.
    private func documentPass(_ store: StoreReader, _ filter: AuditFilter, checkAnchors: Bool,
                              verification: inout AuditVerification,
                              _ body: (AuditDocument) throws -> Void) throws {
        var replay: Verifier.AnnotationReplay? = verification.plan == .shared ? verification.replay : nil
        try AuditReportBuilder(store: store, filter: filter)
            .forEachDocument(checkAnchors: checkAnchors && store.content != nil, replay: &replay, body)
        if let replay { verification.replay = replay }
        try verification.endPass(store)
    }

    /// Writes `report` as one self-contained HTML file, streamed: no network request, no other file, readable with
    /// JavaScript off. The file is written beside `path` and renamed into place; an existing file is replaced
    /// only with `force`.
    ///
    ///     try store.writeAuditReport(try store.auditReport(), toFile: "audit.html")
    /// - Throws: `MarginaliaError` when the file cannot be written or is refused (a store, a directory).
    @discardableResult
    public func writeAuditReport(_ report: AuditReport, toFile path: String, force: Bool = false,
                                 checkAnchors: Bool = true) throws -> AuditReportFiles {
        try engine.reading { store in
            let target = try OutputTarget.resolve(path, policy: store.outputPolicy(force: force))
            var documents = 0
            var changes = report.otherChanges.count
            let bytes = try AuditReportPage(report: report, target: target).write { out in
                let html = AuditReportHTML(report: report, out: out)
                try AuditReportBuilder(store: store, filter: report.filter)
                    .forEachDocument(checkAnchors: checkAnchors && store.content != nil) { document in
                        documents += 1
                        changes += document.changeCount
                        try html.document(document)
                    }
                return documents
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
        try Self.makeDirectory(directory)
        return try engine.reading { store in
            var pages = AuditReportPages(report: report, directory: directory, policy: store.outputPolicy(force: force))
            let changes = try pages.writeDocuments(try AuditReportBuilder(store: store, filter: report.filter),
                                                   checkAnchors: checkAnchors && store.content != nil)
            try pages.writeIndex()
            return AuditReportFiles(paths: pages.paths, bytes: pages.bytes, documents: pages.paths.count - 1,
                                    changes: changes + report.otherChanges.count)
        }
    }

    /// Makes the report of `filter` and writes it as a directory of pages, as `auditReport` and
    /// `writeAuditReport(_:toDirectory:)` together would, reading the log once where it can (as the one page
    /// does): the documents' pages first, and `index.html`, integrity first, once the verdict is known.
    @discardableResult
    public func writeAuditReport(_ filter: AuditFilter, against backup: String? = nil, key: AgeKey? = nil,
                                 toDirectory directory: String, force: Bool = false, checkAnchors: Bool = true)
        throws -> (report: AuditReport, files: AuditReportFiles)
    {
        try Self.makeDirectory(directory)
        var verification = AuditVerification(store: self, filter: filter, against: backup, key: key)
        // As for one page: the verification is waited for outside the read.
        var (pages, changes) = try engine.reading { store in
            let report = try summary(store, filter, verification: VerificationReport(), backup: backup)
            var pages = AuditReportPages(report: report, directory: directory, policy: store.outputPolicy(force: force))
            var changes = 0
            try documentPass(store, filter, checkAnchors: checkAnchors, verification: &verification) { document in
                changes += try pages.writeDocument(document)
            }
            return (pages, changes)
        }
        pages.report.verification = try verification.verdict()
        try pages.writeIndex()
        let files = AuditReportFiles(paths: pages.paths, bytes: pages.bytes, documents: pages.paths.count - 1,
                                     changes: changes + pages.report.otherChanges.count)
        return (pages.report, files)
    }

    private static func makeDirectory(_ directory: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw MarginaliaError(IOError(operation: "mkdir", path: directory, code: 0,
                                          message: "cannot make the directory"))
        }
    }
}

/// The one-page report written to its target: the summary sections, then the documents `body` writes.
struct AuditReportPage {
    let report: AuditReport
    let target: OutputTarget

    /// Writes the page through a temporary file renamed into place; `body` writes the documents and returns how
    /// many. Returns the page's bytes; a page of more than `maxBytes` is not put in place.
    func write(maxBytes: Int? = nil, documents body: (HTMLOutput) throws -> Int) throws -> Int {
        try target.write(purpose: "report") { temporary in
            let sink = FileSink(fileDescriptor: try temporary.openForWriting(), name: temporary.path,
                                closesOnDeinit: true)
            let out = HTMLOutput(sink: sink)
            let html = AuditReportHTML(report: report, out: out)
            try html.open(title: "Marginalia audit report", sections: AuditReportPages.sections)
            try html.integrity()
            try html.activity()
            try html.outside()
            try html.otherChanges()
            try out.openSection("documents", title: "Annotations by document")
            if try body(out) == 0 { try out.raw("<p>No annotation changed in this report.</p>\n") }
            try out.raw("</section>\n")
            try html.close()
            try sink.close()
            if let maxBytes, out.count > maxBytes {
                throw MarginaliaError(AuditReportTooLarge(path: target.path, bytes: out.count, limit: maxBytes))
            }
            return out.count
        }
    }
}
