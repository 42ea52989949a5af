import Marginalia

/// `content documents` and `content passages`: finding the ids to read, highlight and search by.
enum ContentListCommands {
    static let documents = Command(
        spec: CommandSpec(
            name: "content documents", summary: "List the attached content's documents: id, title, passage count.",
            discussion: "In the content's order. With --json, an array of {id, title, order, passages}.",
            examples: ["marginalia content documents", "marginalia content documents --json"]),
        run: { context in
            let store = try context.openStoreIfPresent(content: .required)
            let documents = try store.documents()
            if context.json {
                try Output.print(.array(documents.map { document in
                    .object(JSONObject([
                        ("id", .string(document.id)), ("title", .string(document.title)),
                        ("order", .int(Int64(document.order))), ("passages", .int(Int64(document.passageCount))),
                    ]))
                }), to: context.console)
                return
            }
            let width = documents.map(\.id.count).max() ?? 0
            for document in documents {
                context.console.out("\(document.id.padding(width))  \(document.title) "
                    + "(\(Output.count(document.passageCount, "passage")))")
            }
            if documents.isEmpty { context.console.err("The content holds no documents") }
        })

    static let passages = Command(
        spec: CommandSpec(
            name: "content passages", summary: "List a document's passages: id and text, in order.",
            discussion: """
                Each passage on one line (line breaks inside it shown as ' / '). With --json, an array of \
                {id, document, order, text}.
                """,
            arguments: [.init(name: "DOCUMENT", help: "The document id (see 'content documents').")],
            options: [
                .init(name: "from", value: "P", help: "Start at passage P of the document."),
                .init(name: "limit", short: "n", value: "N", help: "At most N passages."),
            ],
            examples: [
                "marginalia content passages luceafarul --limit 5",
                "marginalia content passages luceafarul --from luceafarul.10 --limit 3 --json",
            ]),
        run: { context in
            let documentID = context.arguments.positionals[0]
            let limit = try context.arguments.integer("limit")
            if limit == 0 { throw UsageError("--limit must be at least 1") }
            let store = try context.openStoreIfPresent(content: .required)
            guard try store.document(id: documentID) != nil else {
                throw StoreError.documentNotFound(id: documentID)
            }
            var passages = try store.passages(document: documentID)
            if let from = context.arguments.value("from") {
                guard let first = try store.passage(id: from) else { throw StoreError.passageNotFound(id: from) }
                guard first.document == documentID else {
                    throw StoreError.invalidAnchor(
                        reason: "\(from) is in document \(first.document), not \(documentID)")
                }
                passages = passages.filter { $0.order >= first.order }
            }
            if let limit { passages = Array(passages.prefix(limit)) }
            if context.json {
                try Output.print(.array(passages.map { passage in
                    .object(JSONObject([
                        ("id", .string(passage.id)), ("document", .string(passage.document)),
                        ("order", .int(Int64(passage.order))), ("text", .string(passage.text)),
                    ]))
                }), to: context.console)
                return
            }
            let width = passages.map(\.id.count).max() ?? 0
            for passage in passages {
                context.console.out("\(passage.id.padding(width))  "
                    + passage.text.replacingOccurrences(of: "\n", with: " / "))
            }
        })
}
