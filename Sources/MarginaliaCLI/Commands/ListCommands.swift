import Marginalia

/// `list` and `show`.
enum ListCommands {
    /// `--as-of TIME`: the store as it was, replayed from the log.
    static let asOfOption = CommandSpec.Option(
        name: "as-of", value: "TIME",
        help: "As it was at TIME (ISO 8601, as for 'log'): every change made at or before TIME, by its clock, "
            + "replayed from the log.")

    static let list = Command(
        spec: CommandSpec(
            name: "list", summary: "List annotations, in reading order when content is attached.",
            discussion: "Works without content: annotations keep their quote and context.",
            options: [
                .init(name: "document", value: "D", help: "Only annotations in document D."),
                .init(name: "passage", value: "P", help: "Only annotations that start or end in passage P."),
                .init(name: "kind", value: "K",
                      help: "Only highlights, notes or bookmarks (highlight, note, bookmark)."),
                .init(name: "tag", value: "T",
                      help: "Only annotations tagged T, ignoring case and diacritics (tara finds ţară)."),
                .init(name: "status", value: "S",
                      help: "Only annotations that are intact, moved or orphaned against the attached content "
                          + "(see 'anchors')."),
                .init(name: "deleted", help: "Include deleted annotations."),
                asOfOption,
            ],
            examples: [
                "marginalia list", "marginalia list --document luceafarul --kind note --json",
                "marginalia list --as-of 2026-11-29T12:00",
            ]),
        run: { context in
            let arguments = context.arguments
            var filter = AnnotationFilter(
                document: arguments.value("document"), passage: arguments.value("passage"), tag: arguments.value("tag"),
                includeDeleted: arguments.flag("deleted"))
            if let kind = arguments.value("kind") {
                guard let parsed = AnnotationKind(rawValue: kind) else {
                    throw UsageError("--kind is highlight, note or bookmark, not '\(kind)'")
                }
                filter.kind = parsed
            }
            var status: AnchorStatus?
            if let name = arguments.value("status") {
                guard let parsed = AnchorStatus(rawValue: name), parsed != .unchecked else {
                    throw UsageError("--status is intact, moved or orphaned, not '\(name)'")
                }
                status = parsed
            }
            let asOf = try HistoryCommands.time(arguments.value("as-of"), option: "as-of")
            let store = try context.openStore(.readOnly, content: status == nil ? .optional : .required)
            var annotations = try asOf.map { try store.annotations(asOf: $0, matching: filter) }
                ?? store.annotations(matching: filter)
            if let status {
                annotations = try store.checkAnchors(annotations).filter { $0.status == status }.map(\.annotation)
            }
            if context.json {
                try Output.print(.array(annotations.map(\.json)), to: context.console)
            } else {
                let ids = try ShortIDs(store, annotations: annotations.map(\.id))
                for annotation in annotations {
                    Output.summary(annotation, ids: ids).forEach { context.console.out($0) }
                }
                if annotations.isEmpty { context.console.err("No annotations") }
            }
        })

    static let show = Command(
        spec: CommandSpec(
            name: "show", summary: "Show one annotation in full.",
            arguments: [.init(name: "ID", help: "The annotation's id or a unique prefix (at least 4 characters).")],
            options: [asOfOption],
            examples: [
                "marginalia show $(marginalia highlight luceafarul.3)",
                "marginalia show $(marginalia list | awk 'NR == 1 { print $1 }') --json",
                "marginalia show $(marginalia list | awk 'NR == 1 { print $1 }') "
                    + "--as-of $(marginalia log --json | jq -r '.[-1].time')",
            ]),
        run: { context in
            let id = context.arguments.positionals[0]
            let asOf = try HistoryCommands.time(context.arguments.value("as-of"), option: "as-of")
            let store = try context.openStore(.readOnly, content: .optional)
            let annotation: Annotation
            if let asOf {
                guard let then = try store.annotation(id: id, asOf: asOf) else {
                    throw ToolError("annotation \(id) did not exist yet at \(Timestamp.iso8601(milliseconds: asOf))")
                }
                annotation = then
            } else {
                annotation = try store.annotation(id: id)
            }
            let check = try store.checkAnchors([annotation])[0]
            if context.json {
                try Output.print(Output.json(check), to: context.console)
            } else {
                // Its changes up to the time shown: they say when it was made and last changed.
                let changes = try store.history(id: annotation.id).filter { change in
                    asOf.map { change.madeAt <= $0 } ?? true
                }
                Output.details(annotation, changes: changes).forEach { context.console.out($0) }
                var status = "status:      \(check.status.rawValue)"
                if let edition = store.content?.edition { status += " against edition \(edition)" }
                if check.status == .unchecked { status += " (no content attached)" }
                context.console.out(status)
                if let anchor = check.newAnchor {
                    context.console.out(
                        "now at:      \(Output.range(anchor)) “\(anchor.quote)” (\(check.match ?? ""))")
                }
                if let reason = check.reason { context.console.out("why:         \(reason)") }
            }
        })
}
