import Foundation
import Testing
@testable import Marginalia

/// Every index of the user schema earns its place: the statements the store really runs (recorded while a store
/// goes through every kind of read and write) are explained with `EXPLAIN QUERY PLAN`, and each index must appear
/// in some plan; lookups by id must search, not scan; and every column of the compact tables is named by some
/// statement or trigger. "EXPLAIN QUERY PLAN … returns high-level information regarding the query plan that
/// would have been used" https://www.sqlite.org/eqp.html
@Suite struct QueryPlanTests {
    let source = makeSource([
        ("luceafarul", [
            ("luceafarul.1", "A fost odată ca-n poveşti,"),
            ("luceafarul.2", "A fost ca niciodată,"),
        ]),
        ("scrisoarea-i", [("scrisoarea-i.1", "Când cu gene ostenite sara suflu-n lumânare,")]),
    ])

    /// Runs reads and writes of every kind on a store at `path` and returns the SQL its connections prepared.
    func statementsRun(in directory: TemporaryDirectory) throws -> Set<String> {
        let path = directory.path("user.db")
        StatementLog.shared.watch(path)
        var watching = true
        defer { if watching { _ = StatementLog.shared.stopWatching(path) } }

        let laptop = try makeStore(directory, source: source, name: "laptop.db")
        let remote = try laptop.createAnnotation(.highlight, at: AnchorRequest(passage: "scrisoarea-i.1", start: 0, end: 4),
                                                 tags: ["seara"])
        _ = try laptop.editAnnotation(id: remote.id, note: "de pe laptop")
        let archive = directory.path("laptop.jsonl.gz")
        try laptop.exportArchive(toFile: archive)

        let store = try makeStore(directory, source: source)
        let made = try store.createAnnotation(
            .highlight, at: AnchorRequest(passage: "luceafarul.1", start: 0, end: 6), note: "început", color: "yellow",
            tags: ["basm"])
        let note = try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.2"), note: "a doua")
        _ = try store.editAnnotation(id: made.id, note: "alt început", addTags: ["eminescu"], removeTags: ["basm"])
        _ = try store.deleteAnnotation(id: note.id)
        _ = try store.undeleteAnnotation(id: note.id)
        _ = try store.reattachAnnotation(id: note.id, at: AnchorRequest(passage: "luceafarul.1", start: 7, end: 12))
        _ = try store.setPosition(document: "luceafarul", at: TextPosition(passage: "luceafarul.2", offset: 2))
        _ = try store.nameDevice("laptop")
        _ = try store.devices()
        _ = try store.importArchive(path: archive)
        _ = try store.annotation(id: made.id)
        let short = try store.abbreviatedIDs([made.id, note.id], kind: .annotation)
        _ = try store.resolveAnnotationID(short[made.id] ?? made.id)
        _ = try store.abbreviatedIDs(try store.history(id: made.id).map(\.changeID), kind: .change)
        _ = try store.abbreviatedID(store.deviceID, kind: .device)
        _ = try store.annotations(matching: AnnotationFilter(document: "luceafarul"))
        _ = try store.annotations(matching: AnnotationFilter(passage: "luceafarul.1"))
        _ = try store.history(id: made.id)
        _ = try store.resolveID(try #require(store.history(id: made.id).first).changeID, kind: .change)
        _ = try store.historyEntries(id: made.id)
        _ = try store.log(LogFilter(since: 1, device: store.deviceID))
        _ = try store.log(LogFilter(limit: 2))
        _ = try store.searchNotes("inceput")
        _ = try store.searchContent("poveşti")
        _ = try store.annotations(asOf: Timestamp.nowMilliseconds())
        _ = try store.diff(since: 0)
        _ = try store.receipts(ofChanges: [remote.id])
        _ = try store.changes(after: nil)
        _ = try store.verify()
        _ = try store.reconcileAnchors()
        _ = try store.foundRoster()
        _ = try store.invite()
        try store.exportArchive(toFile: directory.path("full.jsonl.gz"))
        try store.exportArchive(toFile: directory.path("part.jsonl.gz"),
                                filter: ExportFilter(document: "luceafarul", since: 1))
        try store.close()
        _ = try AnnotationStore.open(path: path, access: .readWrite)
        watching = false
        return StatementLog.shared.stopWatching(path)
    }

    /// The plan of `sql` (its `detail` lines), or nil when it cannot be explained outside the connection that ran
    /// it (it names a temporary table of that connection).
    func plan(of sql: String, in db: SQLiteDatabase) -> [String]? {
        // Every parameter bound to NULL: the plan does not depend on the values. Numbered ones (?1) count up to
        // the largest number, bare ones one each.
        let numbered = sql.matches(of: /\?(\d+)/).compactMap { Int($0.1) }.max() ?? 0
        let bare = sql.matches(of: /\?(?!\d)/).count
        let arguments = StatementArguments(Array(repeating: DatabaseValue.null, count: max(numbered, bare)))
        return try? db.fetchAll(sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments) { try $0.string(3) }
    }

    @Test func everyIndexIsUsedAndLookupsByIDSearch() throws {
        let directory = try TemporaryDirectory()
        let statements = try statementsRun(in: directory)
        #expect(statements.count > 40)
        let db = try SQLiteDatabase(path: directory.path("user.db"), mode: .readOnly)
        try db.attachReadOnly(path: directory.path("content-test-1.db"), as: "content")

        var plans: [String: [String]] = [:]
        for sql in statements {
            guard let lines = plan(of: sql, in: db) else {
                // Only the statements naming a temporary table or the staging database of the connection that ran
                // them, or a table a migration made and dropped again.
                #expect(["temp.", "staging.", "text_annotations", "compact_changes"].contains { sql.contains($0) },
                        "cannot explain: \(sql)")
                continue
            }
            plans[sql] = lines
        }
        let details = plans.values.joined()

        let indexes = try db.fetchAll(
            sql: """
                SELECT name FROM main.sqlite_schema WHERE type = 'index' AND tbl_name NOT LIKE 'notes_fts%'
                AND tbl_name NOT IN (SELECT name FROM main.pragma_table_list WHERE wr = 1)
                ORDER BY name
                """) { try $0.string(0) }
        #expect(indexes.contains("changes_by_clock") && indexes.contains("sqlite_autoindex_changes_1"))
        for index in indexes {
            let used = details.contains { $0.contains("USING INDEX \(index) ") || $0.contains("USING COVERING INDEX \(index)") }
            #expect(used, "no statement the store runs uses \(index)")
        }

        // A statement that looks one row up by its id searches an index; it never reads the whole table.
        let lookups = [
            ("FROM annotations WHERE id = ?", "annotations"), ("FROM changes WHERE change_id = ?", "changes"),
            ("WHERE entity = ? AND entity_id = ?", "changes"), ("FROM devices WHERE id = ?", "devices"),
            // A short id's neighbours in id order (`abbreviatedIDs`).
            ("FROM annotations WHERE id < ?", "annotations"), ("FROM annotations WHERE id > ?", "annotations"),
            ("FROM changes WHERE change_id < ?", "changes"), ("FROM changes WHERE change_id > ?", "changes"),
            ("FROM devices WHERE id < ?", "devices"), ("FROM devices WHERE id > ?", "devices"),
        ]
        for (fragment, table) in lookups {
            let matching = plans.filter { $0.key.contains(fragment) }
            #expect(!matching.isEmpty, "no statement run contains \(fragment)")
            for (sql, lines) in matching {
                #expect(!lines.contains { $0.hasPrefix("SCAN \(table)") }, "\(sql) scans \(table): \(lines)")
            }
        }
    }

    @Test func everyColumnOfTheCompactTablesIsNamedBySomeStatementOrTrigger() throws {
        let directory = try TemporaryDirectory()
        let statements = try statementsRun(in: directory)
        let db = try SQLiteDatabase(path: directory.path("user.db"), mode: .readOnly)
        let triggers = try db.fetchAll(sql: "SELECT sql FROM sqlite_schema WHERE type = 'trigger'") { try $0.string(0) }
        let texts = Array(statements) + triggers
        for table in ["changes", "annotations", "devices"] {
            let columns = try db.fetchAll(sql: "SELECT name FROM pragma_table_info(?)", arguments: [table]) {
                try $0.string(0)
            }
            #expect(!columns.isEmpty)
            for column in columns {
                let named = texts.contains { text in
                    text.range(of: "\\b\(column)\\b", options: .regularExpression) != nil
                }
                #expect(named, "\(table).\(column) is named by no statement the store runs")
            }
        }
    }
}
