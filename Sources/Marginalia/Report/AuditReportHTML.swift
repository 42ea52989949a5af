/// Renders an `AuditReport` as HTML: one self-contained page (no network, no other file, inline CSS, readable
/// with JavaScript off), or an index page and a page per document. Every text from the store goes through
/// `HTMLText`.
struct AuditReportHTML {
    let report: AuditReport
    let out: HTMLOutput
    /// The name shown for each device id.
    let names: [String: String]
    /// Each device's colour in the timeline.
    let colors: [String: String]

    init(report: AuditReport, out: HTMLOutput) {
        self.report = report
        self.out = out
        var names: [String: String] = [:]
        var colors: [String: String] = [:]
        for (index, device) in report.devices.enumerated() {
            names[device.id] = device.name ?? String(device.id.prefix(8))
            colors[device.id] = AuditReportStyle.palette[index % AuditReportStyle.palette.count]
        }
        self.names = names
        self.colors = colors
    }

    /// The name shown for a device.
    func name(_ device: String) -> String { names[device] ?? String(device.prefix(8)) }

    // MARK: - The page

    /// Everything up to `<main>`: the head with its policy, the header and the navigation.
    func open(title: String, sections: [(href: String, title: String)]) throws {
        try out.raw("""
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="\(try AuditReportStyle.contentSecurityPolicy())">
            <meta name="referrer" content="no-referrer">
            <meta name="generator" content="Marginalia">
            <title>
            """)
        try out.text(title)
        try out.raw("</title>\n<style>\(AuditReportStyle.css)</style>\n</head>\n<body>\n<header>\n")
        try out.element("h1", "", title)
        try out.element("p", "class=\"muted\"", "Made \(Timestamp.iso8601(milliseconds: report.madeAt)); "
            + coverage())
        try out.raw("</header>\n<nav aria-label=\"Sections\">\n<ul>\n")
        for section in sections {
            try out.raw("<li><a href=\"\(section.href)\">")
            try out.text(section.title)
            try out.raw("</a></li>\n")
        }
        try out.raw("</ul>\n<p id=\"filter-slot\"></p>\n</nav>\n<main>\n")
    }

    /// What the filter covers, in words.
    private func coverage() -> String {
        let filter = report.filter
        var parts: [String] = []
        if let since = filter.since { parts.append("changes from \(Timestamp.iso8601(milliseconds: since))") }
        if let until = filter.until { parts.append("changes before \(Timestamp.iso8601(milliseconds: until))") }
        if let asOf = filter.asOf { parts.append("the store as of \(Timestamp.iso8601(milliseconds: asOf))") }
        if let device = filter.device { parts.append("changes by device \(device)") }
        if let document = filter.document { parts.append("document \(document)") }
        let what = parts.isEmpty ? "the whole history" : parts.joined(separator: ", ")
        return "covers \(what): \(count(report.changeCount, "change")) by \(count(report.devices.count, "device"))."
    }

    /// Closes `<main>` and the page, with the script.
    func close() throws {
        try out.raw("</main>\n<footer><p class=\"muted\">Written by marginalia report. Every note, quote, tag and "
            + "name is shown as text; control and direction characters appear as their code points.</p></footer>\n"
            + "<script>\(AuditReportStyle.script)</script>\n</body>\n</html>\n")
        try out.flush()
    }

    // MARK: - Integrity

    /// verify's verdict, the chain head, the backup, and the changes held in quarantine.
    func integrity() throws {
        let verification = report.verification
        try out.raw("<section id=\"integrity\" aria-labelledby=\"integrity-title\">\n")
        try out.raw("<h2 id=\"integrity-title\">Integrity</h2>\n")
        try out.raw("<p id=\"verdict\" class=\"verdict \(verification.isHealthy ? "ok" : "bad")\" "
            + "data-ok=\"\(verification.isHealthy)\"><strong>\(verification.isHealthy ? "OK" : "FAILED")</strong>: ")
        try out.text(verification.isHealthy
            ? "\(count(verification.changeCount, "change")) replay to "
                + "\(count(verification.annotationCount, "annotation")) and "
                + "\(count(verification.positionCount, "reading position")); the hash chain holds."
            : "\(count(verification.problems.count, "problem")) found.")
        try out.raw("</p>\n<dl>\n<dt>Chain head</dt><dd>seq <span id=\"head-seq\">\(verification.head.sequence)"
            + "</span>, digest <code id=\"head-digest\">\(verification.head.digest)</code></dd>\n")
        if let backup = report.backup, let against = verification.against {
            try out.raw("<dt>Checked against</dt><dd>")
            try out.element("code", "", backup)
            try out.raw(verification.isHealthy
                ? ": the history up to seq \(against.sequence) is unchanged since it was written</dd>\n"
                : ": history up to seq \(against.sequence) checked; see the problems</dd>\n")
        }
        try out.raw("</dl>\n")
        if !verification.problems.isEmpty {
            try out.raw("<ul class=\"problems\">\n")
            for problem in verification.problems { try out.element("li", "", problem) }
            try out.raw("</ul>\n")
        }
        try quarantine()
        try out.raw("</section>\n")
    }

    private func quarantine() throws {
        let held = report.quarantined
        try out.raw("<h3>Held in quarantine</h3>\n")
        guard !held.isEmpty else {
            try out.raw("<p id=\"quarantine\">No change is held: none arrived dated ahead of this clock.</p>\n")
            return
        }
        try out.raw("<div class=\"scroll\"><table id=\"quarantine\"><caption>\(count(held.count, "change")) held, "
            + "dated ahead of this machine's clock</caption>\n"
            + HTMLOutput.tableHead(["Made", "Operation", "Annotation or document", "Device", "From", "Seen"])
            + "<tbody>\n")
        for item in held {
            let change = item.change
            try out.raw("<tr data-held=\"")
            try out.text(change.changeID)
            try out.raw("\"><td>\(Timestamp.iso8601(milliseconds: change.madeAt))</td><td>\(operation(change))</td>")
            try out.element("td", "class=\"id\"", change.entityID)
            try out.element("td", "", name(change.device))
            try out.element("td", "", item.source)
            try out.element("td", "", item.seenAt)
            try out.raw("</tr>\n")
        }
        try out.raw("</tbody></table></div>\n")
    }

    // MARK: - Pieces

    /// An operation's label: its name as text, in a box of its colour from the style sheet (`b.create`, …).
    func operation(_ change: Change) -> String {
        let name = change.operation.rawValue
        return "<b class=\(name)>\(name)</b>"
    }

    /// "3 changes", "1 change".
    func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
