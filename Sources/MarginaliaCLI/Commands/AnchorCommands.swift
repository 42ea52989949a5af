import Marginalia

/// `anchors` and `reattach`: accounting for every annotation after a content update.
enum AnchorCommands {
    static let anchors = Command(
        spec: CommandSpec(
            name: "anchors", summary: "Check every annotation against the attached content edition.",
            discussion: """
                Each annotation is intact (its text is at its place), moved (its text, respelled or slightly \
                reworded, is elsewhere in its passage or a neighbouring one), or orphaned (its passage is gone, or \
                nothing close enough is left). Matching ignores case, diacritics (cedilla and comma-below alike), \
                soft hyphens, white space and punctuation, and accepts up to one edit in four characters. \
                Prints the count of each and every annotation that is not intact. Writes nothing unless --reanchor \
                is given; then each move is recorded in the log as a 'reanchor' change, and each intact annotation \
                made on an earlier edition as a 'confirm' change (see 'history'), all in one transaction; a second \
                run writes nothing. Nothing is ever deleted: orphans keep their quote and note, and 'reattach' \
                anchors them again by hand. The store remembers the content it was re-anchored with (its edition, \
                and its path unless it was the bundled sample): it is the default content of later commands. \
                Re-anchoring onto an older edition (editions WORK-N.N… are ordered by their numbers: \
                eminescu-2026.1 < eminescu-2026.2) or onto content sharing no passage with the annotations is \
                refused (exit 65) unless --allow-older is given.
                """,
            options: [
                .init(name: "reanchor", help: "Move each moved annotation to where its text is now (a logged change)."),
                .init(name: "allow-older",
                      help: "With --reanchor: re-anchor even onto an older edition than the last one reconciled with, "
                          + "or onto content that shares no passage with the annotations."),
            ],
            examples: [
                "marginalia --content poezii-2.db anchors",
                "marginalia --content poezii-2.db anchors --reanchor",
            ]),
        run: { context in
            let reanchor = context.arguments.flag("reanchor")
            let store = try context.openStore(reanchor ? .readWrite : .readOnly, content: .required, remind: false)
            let report = try context.withProgress(on: store) {
                try store.reconcileAnchors(
                    reanchor: reanchor, allowOlder: context.arguments.flag("allow-older"),
                    recordingPath: !context.contentIsBundled)
            }
            if context.json {
                try Output.print(.object(JSONObject([
                    ("edition", report.edition.map(JSONValue.string) ?? .null),
                    ("total", .int(Int64(report.total))), ("intact", .int(Int64(report.intact))),
                    ("moved", .int(Int64(report.moved))), ("orphaned", .int(Int64(report.orphaned))),
                    ("reanchored", .int(Int64(report.reanchored))), ("confirmed", .int(Int64(report.confirmed))),
                    ("annotations", .array(report.checks.map(Output.json))),
                ])), to: context.console)
                return
            }
            context.console.out("Edition \(report.edition ?? "?"): \(Output.count(report.total, "annotation")) — "
                + "\(report.intact) intact, \(report.moved) moved, \(report.orphaned) orphaned")
            let ids = try ShortIDs(store, annotations: report.checks.map(\.annotation.id))
            for check in report.checks {
                Output.checkLines(check, ids: ids).forEach { context.console.out($0) }
            }
            if reanchor {
                context.console.out("Re-anchored \(Output.count(report.reanchored, "annotation")) "
                    + "and confirmed \(report.confirmed) on edition \(report.edition ?? "?")")
            } else if report.moved > 0 {
                context.console.err("Nothing was written; to record the moves, run: "
                    + context.suggested("anchors --reanchor"))
            }
        })

    static let reattach = Command(
        spec: CommandSpec(
            name: "reattach", summary: "Anchor an annotation again by hand (an orphan, or one that moved wrongly).",
            arguments: [
                .init(name: "ID", help: "The annotation's id or a unique prefix (at least 4 characters)."),
                .init(name: "PASSAGE[:START-END]", help: "Where it belongs now."),
            ],
            options: [
                .init(name: "quote", value: "TEXT", help: "Find TEXT in the passage instead of counting offsets."),
                .init(name: "to", value: "PASSAGE[:END]",
                      help: "End the range in a later passage of the same document."),
            ],
            examples: [
                "marginalia reattach $(marginalia highlight luceafarul.5) luceafarul.6 --quote \"mindra-n toate cele\"",
            ]),
        run: { context in
            let request = try AnchorSyntax.request(context.arguments.positionals[1], arguments: context.arguments)
            let store = try context.openStore(.readWrite, content: .required, remind: false)
            let annotation = try store.reattachAnnotation(id: context.arguments.positionals[0], at: request)
            if context.json {
                try Output.print(annotation.json, to: context.console)
            } else {
                context.console.err("Reattached \(annotation.id) to \(Output.range(annotation.anchor)): "
                    + "“\(Output.excerpt(annotation.anchor.quote))”")
            }
        })
}
