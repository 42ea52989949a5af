/// A report written as a directory: `index.html` with the summary and a link to each document's page, and one
/// page per document. Each page is self-contained (its own style, policy and script) and written atomically.
struct AuditReportPages {
    let store: StoreConnection
    let report: AuditReport
    let directory: String
    let force: Bool

    /// The sections of the one-file report, as its navigation links them.
    static let sections: [(href: String, title: String)] = [
        ("#integrity", "Integrity"), ("#activity", "Activity"), ("#outside", "From outside"),
        ("#other", "Positions and names"), ("#documents", "Annotations"),
    ]

    /// The page of the document at `index` (0-based) in `report.documents`.
    static func pageName(_ index: Int) -> String { "document-\(index + 1).html" }

    func write(checkAnchors: Bool) throws -> AuditReportFiles {
        var paths: [String] = []
        var bytes = 0
        var changes = report.otherChanges.count
        let index = Dictionary(report.documents.enumerated().map { ($1.id, $0) }) { first, _ in first }
        try page("index.html", paths: &paths, bytes: &bytes) { html in
            try html.open(title: "Marginalia audit report", sections: Self.sections)
            try html.integrity()
            try html.activity()
            try html.outside()
            try html.otherChanges()
            try contents(html.out)
            try html.close()
        }
        try AuditReportBuilder(store: store, filter: report.filter).forEachDocument(checkAnchors: checkAnchors) {
            document in
            changes += document.changeCount
            let name = Self.pageName(index[document.id] ?? report.documents.count + paths.count)
            try page(name, paths: &paths, bytes: &bytes) { html in
                let title = document.id.isEmpty ? "annotations not yet made" : document.id
                try html.open(title: "Audit report: " + title,
                              sections: [("index.html", "Summary"), ("index.html#documents", "All documents")])
                try html.document(document, heading: "h2")
                try html.close()
            }
        }
        return AuditReportFiles(paths: paths, bytes: bytes, documents: paths.count - 1, changes: changes)
    }

    /// The list of documents, each linked to its page.
    private func contents(_ out: HTMLOutput) throws {
        try out.raw("<section id=\"documents\" aria-labelledby=\"documents-title\">\n<h2 id=\"documents-title\">"
            + "Annotations by document</h2>\n")
        guard !report.documents.isEmpty else {
            try out.raw("<p>No annotation changed in this report.</p>\n</section>\n")
            return
        }
        try out.raw("<div class=\"scroll\"><table><thead><tr><th scope=\"col\">Document</th><th scope=\"col\">"
            + "Annotations</th><th scope=\"col\">Changes</th></tr></thead>\n<tbody>\n")
        for (number, document) in report.documents.enumerated() {
            try out.raw("<tr><th scope=\"row\"><a href=\"\(Self.pageName(number))\">")
            try out.text(document.id.isEmpty ? "(annotations not yet made)" : document.id)
            try out.raw("</a></th><td class=\"n\">\(document.annotations)</td><td class=\"n\">\(document.changes)"
                + "</td></tr>\n")
        }
        try out.raw("</tbody></table></div>\n</section>\n")
    }

    private func page(_ name: String, paths: inout [String], bytes: inout Int,
                      _ body: (AuditReportHTML) throws -> Void) throws {
        let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
        let target = try OutputTarget.resolve(path, policy: store.outputPolicy(force: force))
        bytes += try target.write(purpose: "report") { temporary in
            let sink = FileSink(fileDescriptor: try temporary.openForWriting(), name: temporary.path,
                                closesOnDeinit: true)
            let out = HTMLOutput(sink: sink)
            try body(AuditReportHTML(report: report, out: out))
            try sink.close()
            return out.count
        }
        paths.append(target.path)
    }
}
