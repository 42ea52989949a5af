/// A report written as a directory: `index.html` with the summary and a link to each document's page, and one
/// page per document. Each page is self-contained (its own style, policy and script) and written atomically.
struct AuditReportPages {
    /// The report; its verification is read only by `writeIndex`.
    var report: AuditReport
    let directory: String
    /// What may be replaced, and the store's files that never are.
    let policy: OutputTarget.Policy
    /// The pages written so far and their bytes.
    private(set) var paths: [String] = []
    private(set) var bytes = 0

    /// The sections of the one-file report, as its navigation links them.
    static let sections: [(href: String, title: String)] = [
        ("#integrity", "Integrity"), ("#activity", "Activity"), ("#outside", "From outside"),
        ("#other", "Positions and names"), ("#documents", "Annotations"),
    ]

    /// The page of the document at `index` (0-based) in `report.documents`.
    static func pageName(_ index: Int) -> String { "document-\(index + 1).html" }

    /// Each listed document's place in `report.documents`.
    private let documentIndex: [String: Int]
    /// Documents written that the list leaves out.
    private var unlisted = 0

    init(report: AuditReport, directory: String, policy: OutputTarget.Policy) {
        self.report = report
        documentIndex = Dictionary(report.documents.enumerated().map { ($1.id, $0) }) { first, _ in first }
        self.directory = directory
        self.policy = policy
    }

    /// Writes a page per document `builder` hands over; returns the changes they show.
    mutating func writeDocuments(_ builder: AuditReportBuilder, checkAnchors: Bool) throws -> Int {
        var changes = 0
        try builder.forEachDocument(checkAnchors: checkAnchors) { changes += try writeDocument($0) }
        return changes
    }

    /// Writes the page of one document; returns the changes it shows.
    mutating func writeDocument(_ document: AuditDocument) throws -> Int {
        let name = Self.pageName(documentIndex[document.id] ?? report.documents.count + unlisted)
        if documentIndex[document.id] == nil { unlisted += 1 }
        let written = try page(name) { html in
            let title = document.id.isEmpty ? "annotations not yet made" : document.id
            try html.open(title: "Audit report: " + title,
                          sections: [("index.html", "Summary"), ("index.html#documents", "All documents")])
            try html.document(document, heading: "h2")
            try html.close()
        }
        paths.append(written.path)
        bytes += written.bytes
        return document.changeCount
    }

    /// Writes `index.html`: the summary, integrity first, and a link to each document's page.
    mutating func writeIndex() throws {
        let written = try page("index.html") { html in
            try html.open(title: "Marginalia audit report", sections: Self.sections)
            try html.integrity()
            try html.activity()
            try html.outside()
            try html.otherChanges()
            try contents(html.out)
            try html.close()
        }
        paths.append(written.path)
        bytes += written.bytes
    }

    /// The list of documents, each linked to its page.
    private func contents(_ out: HTMLOutput) throws {
        try out.openSection("documents", title: "Annotations by document")
        guard !report.documents.isEmpty else {
            try out.raw("<p>No annotation changed in this report.</p>\n</section>\n")
            return
        }
        try out.raw("<div class=\"scroll\"><table>" + HTMLOutput.tableHead(["Document", "Annotations", "Changes"])
            + "<tbody>\n")
        for (number, document) in report.documents.enumerated() {
            try out.raw("<tr><th scope=\"row\"><a href=\"\(Self.pageName(number))\">")
            try out.text(document.id.isEmpty ? "(annotations not yet made)" : document.id)
            try out.raw("</a></th><td class=\"n\">\(document.annotations)</td><td class=\"n\">\(document.changes)"
                + "</td></tr>\n")
        }
        try out.raw("</tbody></table></div>\n</section>\n")
    }

    /// Writes one page atomically; returns where and its bytes.
    private func page(_ name: String, _ body: (AuditReportHTML) throws -> Void) throws -> (path: String, bytes: Int) {
        let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
        let target = try OutputTarget.resolve(path, policy: policy)
        let bytes = try target.write(purpose: "report") { temporary in
            let sink = FileSink(fileDescriptor: try temporary.openForWriting(), name: temporary.path,
                                closesOnDeinit: true)
            let out = HTMLOutput(sink: sink)
            try body(AuditReportHTML(report: report, out: out))
            try sink.close()
            return out.count
        }
        return (target.path, bytes)
    }
}
