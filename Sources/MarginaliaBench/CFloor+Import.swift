// The import's floor: the rows an import into an empty store wrote, written again through the C API.
import CSQLite
import Foundation
import Marginalia

extension CFloor {
    /// The tables an import into an empty store fills, in an order their foreign keys allow (the log names devices
    /// and receipts). A table the import filled that is not named here is copied after these.
    static let importTables = ["devices", "receipts", "changes", "annotations", "positions"]

    /// One table's rows as the import left them, in key order, packed for binding.
    private struct TableRows {
        var table: String
        var columns: [String]
        var rows: PackedRows
    }

    /// What the floor wrote: its seconds from BEGIN to COMMIT and the rows per table.
    struct ImportFloor {
        var seconds: Double
        var rows: [(table: String, count: Int)]
    }

    /// Reads every row the import wrote into the store at `imported` (every table it filled, `meta` aside, which
    /// the empty store holds already) and inserts them into an empty store the library creates at `path`: the same
    /// schema, triggers (the notes index fills as rows go in) and settings (WAL, `synchronous=FULL`, foreign keys
    /// on), one prepared INSERT per table, rows in key order, text bound with SQLITE_STATIC, one transaction.
    /// Returns the seconds from BEGIN to COMMIT; reading and packing the rows is not timed.
    static func copyImport(from imported: String, into path: String) throws -> ImportFloor {
        let tables = try readImported(imported)
        try AnnotationStore.open(path: path, access: .create).close()
        let db = try CConnection(path: path)
        // As UserDatabase and SQLiteDatabase set them (WAL persists in the file); statement journals in memory, as
        // the batch-create floor keeps them.
        try db.execute("""
            PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY
            """)
        for table in tables {
            let count = try CFloor.count(db, table.table)
            guard count == 0 else {
                throw BenchError("the empty store made for the import floor already holds \(count) \(table.table) rows")
            }
        }
        var statements: [OpaquePointer] = []
        defer { statements.forEach { sqlite3_finalize($0) } }
        for table in tables {
            let marks = Array(repeating: "?", count: table.columns.count).joined(separator: ", ")
            statements.append(try db.prepare(
                "INSERT INTO \(quoted(table.table)) (\(table.columns.map(quoted).joined(separator: ", "))) "
                    + "VALUES (\(marks))"))
        }
        let start = Timing.now()
        try db.execute("BEGIN IMMEDIATE")
        for (table, statement) in zip(tables, statements) {
            for row in 0..<table.rows.rows.count {
                try db.check(table.rows.bind(row, to: statement), "bind")
                try db.check(sqlite3_step(statement), "INSERT INTO \(table.table)")
                sqlite3_reset(statement)
            }
        }
        try db.execute("COMMIT")
        let seconds = Timing.now() - start
        var rows: [(table: String, count: Int)] = []
        for table in tables {
            let count = try CFloor.count(db, table.table)
            guard count == table.rows.rows.count else {
                throw BenchError("the import floor wrote \(count) \(table.table) rows of \(table.rows.rows.count)")
            }
            rows.append((table.table, count))
        }
        return ImportFloor(seconds: seconds, rows: rows)
    }

    /// The filled tables of the store at `path` (ordinary tables: `pragma_table_list` names virtual and shadow
    /// tables by their own types), each with its columns and rows in key order: the primary key's columns in the
    /// key's order, else the rowid. The store's own rows (`meta`, and what adapters keep of it in `adapter_state`,
    /// its file's identity) are its own, never imported.
    private static func readImported(_ path: String) throws -> [TableRows] {
        let db = try SQLiteDatabase(path: path, mode: .readOnly)
        let names = try db.fetchAll(sql: """
            SELECT name FROM pragma_table_list
            WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%'
                AND name NOT IN ('meta', 'adapter_state')
            ORDER BY name
            """) { try $0.string(0) }
        var filled: [String] = []
        for name in names {
            if try db.int(sql: "SELECT EXISTS (SELECT 1 FROM \(quoted(name)))") == 1 { filled.append(name) }
        }
        let ordered = importTables.filter(filled.contains) + filled.filter { !importTables.contains($0) }
        return try ordered.map { table in
            let info = try db.fetchAll(sql: "SELECT name, pk FROM pragma_table_info(?) ORDER BY cid",
                                       arguments: [table]) { (try $0.string(0), try $0.int64(1)) }
            let key = info.filter { $0.1 > 0 }.sorted { $0.1 < $1.1 }.map { quoted($0.0) }
            let columns = info.map(\.0)
            let values = try db.fetchAll(sql: """
                SELECT \(columns.map(quoted).joined(separator: ", ")) FROM \(quoted(table))
                ORDER BY \(key.isEmpty ? "rowid" : key.joined(separator: ", "))
                """) { row in (0..<row.count).map { row.value(at: $0) } }
            return TableRows(table: table, columns: columns, rows: PackedRows(values))
        }
    }

    private static func count(_ db: CConnection, _ table: String) throws -> Int {
        let statement = try db.prepare("SELECT count(*) FROM \(quoted(table))")
        defer { sqlite3_finalize(statement) }
        try db.check(sqlite3_step(statement), "SELECT count(*) FROM \(table)")
        return Int(sqlite3_column_int64(statement, 0))
    }

    /// A name as an SQL identifier, in double quotes.
    private static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
