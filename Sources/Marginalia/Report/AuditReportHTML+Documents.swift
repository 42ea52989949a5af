// MARK: - Documents: each annotation and every version of it

extension AuditReportHTML {
    /// One document's section: a `<details>` per annotation, its versions inside with their field diffs.
    ///
    /// The markup per version is kept short, as it is most of a large page: optional end tags (`</li>`) are left
    /// out, a value set for the first time is plain text (only a replaced one is `<del>` → `<ins>`), the
    /// annotation's id is written once, as text, and a version's id only as its `data-change` (its time and device
    /// are what a person reads; the id's first characters are that time again).
    func document(_ document: AuditDocument, heading: String = "h3") throws {
        try out.raw("<section class=\"document\" data-document=\"")
        try out.text(document.id)
        try out.raw("\">\n<\(heading)>")
        try out.text(document.id.isEmpty ? "(annotations whose create change has not arrived)" : document.id)
        try out.raw("</\(heading)>\n<p class=\"muted\">\(count(document.annotations.count, "annotation")), "
            + "\(count(document.changeCount, "change"))</p>\n")
        for annotation in document.annotations { try self.annotation(annotation) }
        try out.raw("</section>\n")
    }

    private func annotation(_ annotation: AuditAnnotation) throws {
        try out.raw("<details class=\"annotation\"><summary>")
        if let deleted = annotation.deletedBy {
            try out.raw("<b>[deleted by ")
            try out.text(name(deleted.device))
            try out.raw(" \(Timestamp.iso8601(milliseconds: deleted.madeAt))]</b> ")
        }
        if let reason = annotation.orphanReason {
            try out.raw("<b>[orphaned: ")
            try out.text(reason)
            try out.raw("]</b> ")
        }
        if let current = annotation.current {
            // In a summary, <i> is the muted kind and tags, <q> the quote and <span> the note (the style sheet).
            try out.raw("<i>\(current.kind.rawValue)</i>")
            if !current.anchor.quote.isEmpty {
                try out.raw(" ")
                try out.element("q", "", "«\(current.anchor.quote)»")
            }
            if let note = current.note {
                try out.raw(" — ")
                try out.element("span", "", note)
            }
            if !current.tags.isEmpty {
                try out.raw(" ")
                try out.element("i", "", "#" + current.tags.joined(separator: " #"))
            }
        } else {
            try out.element("code", "", annotation.id)
        }
        // One version is the usual case: only another number is said.
        if annotation.versions.count != 1 { try out.raw(" <i>(\(count(annotation.versions.count, "version")))</i>") }
        try out.raw("</summary>\n<code>")
        try out.text(annotation.id)
        try out.raw("</code>\n<ol>\n")
        for entry in annotation.versions { try version(entry, among: annotation.versions) }
        try out.raw("</ol></details>\n")
    }

    /// One version and its field diffs; a field that lost the merge names the version that kept its value, found
    /// in `versions` (the annotation's, as shown).
    private func version(_ entry: HistoryEntry, among versions: [HistoryEntry]) throws {
        let change = entry.change
        try out.raw("<li data-change=\"")
        try out.text(change.changeID)
        try out.raw("\">\(operation(change)) ")
        try madeBy(change)
        try out.raw("<ul>")
        for field in entry.fields {
            try out.raw("<li>")
            try out.text(field.register.description)
            // A field set for the first time has no old value to show.
            if field.previous == .none {
                try out.raw(": ")
                try out.text(shown(field.value))
            } else {
                try out.raw(": <del>")
                try out.text(shown(field.previous))
                try out.raw("</del> → <ins>")
                try out.text(shown(field.value))
                try out.raw("</ins>")
            }
            if let kept = field.keptBy {
                try out.raw(" <b>(lost the merge: ")
                if let keeper = versions.first(where: { $0.change.changeID == kept })?.change {
                    try out.raw("the version of ")
                    try madeBy(keeper)
                } else {
                    try out.raw("change <code>")
                    try out.text(kept)
                    try out.raw("</code>")
                }
                try out.raw(" kept its value)</b>")
            }
        }
        try out.raw("</ul>\n")
    }

    /// When and by which device `change` was made: `2026-11-02T10:15:00.000Z by laptop`.
    private func madeBy(_ change: Change) throws {
        try out.raw("\(Timestamp.iso8601(milliseconds: change.madeAt)) by ")
        try out.text(name(change.device))
    }

    /// A field's value as the report prints it.
    func shown(_ value: FieldValue) -> String {
        switch value {
        case .none: return "(none)"
        case .text(let text): return "«\(text)»"
        case .flag(let flag): return flag ? "yes" : "no"
        case .kind(let kind): return kind.rawValue
        case .tags(let tags): return tags.isEmpty ? "(none)" : tags.joined(separator: ", ")
        case .anchor(let anchor):
            // A range within one passage names it once: calin.25:8–44.
            let end = anchor.end.passage == anchor.start.passage ? "" : "\(anchor.end.passage):"
            return "\(anchor.start.passage):\(anchor.start.offset)–\(end)\(anchor.end.offset) "
                + "«\(anchor.quote)» (\(anchor.edition))"
        }
    }

    // MARK: - Other changes and what came from outside

    /// The reading-position and device-name changes in the report.
    func otherChanges() throws {
        try out.openSection("other", title: "Reading positions and device names")
        guard !report.otherChanges.isEmpty else {
            try out.raw("<p>No such change in this report.</p>\n</section>\n")
            return
        }
        try out.raw("<div class=\"scroll\"><table>" + HTMLOutput.tableHead(["Made", "Operation", "What", "Device"])
            + "<tbody>\n")
        for change in report.otherChanges {
            try out.raw("<tr data-change=\"")
            try out.text(change.changeID)
            try out.raw("\" data-device=\"")
            try out.text(change.device)
            try out.raw("\"><td>\(Timestamp.iso8601(milliseconds: change.madeAt))</td><td>\(operation(change))</td>")
            if change.entity == .device {
                try out.element("td", "", "device \(name(change.entityID)) named «\(change.fields.name ?? "")»")
            } else {
                try out.element("td", "", "reading position in \(change.entityID)")
            }
            try out.element("td", "", name(change.device))
            try out.raw("</tr>\n")
        }
        try out.raw("</tbody></table></div>\n</section>\n")
    }

    /// Every receipt: imports, restores, sync segments and merges, with the file, its SHA-256 and counts.
    func outside() throws {
        try out.openSection("outside", title: "What came from outside")
        guard !report.receipts.isEmpty else {
            try out.raw("<p>Nothing was received: every change was made here.</p>\n</section>\n")
            return
        }
        try out.raw("<div class=\"scroll\"><table id=\"receipts\"><caption>Imports, restores and sync rounds"
            + "</caption>\n" + HTMLOutput.tableHead(["#", "Received", "Kind", "File", "Bytes", "SHA-256", "Read", "New",
                                                       "Already here", "Held"]) + "<tbody>\n")
        for receipt in report.receipts {
            try out.raw("<tr data-receipt=\"\(receipt.id)\" data-kind=\"\(receipt.kind)\"><th scope=\"row\">"
                + "\(receipt.id)</th><td>")
            try out.text(receipt.receivedAt)
            try out.raw("</td><td>\(receipt.kind)</td>")
            try out.element("td", "class=\"id\"", receipt.file ?? "—")
            try out.raw("<td class=\"n\">\(receipt.size.map(String.init) ?? "—")</td>")
            try out.element("td", "class=\"id\"", receipt.sha256 ?? "—")
            try out.raw("<td class=\"n\">\(receipt.changesRead)</td><td class=\"n\">\(receipt.newChanges)</td>"
                + "<td class=\"n\">\(receipt.duplicates)</td><td class=\"n\">\(receipt.quarantined)</td></tr>\n")
        }
        try out.raw("</tbody></table></div>\n</section>\n")
    }
}
