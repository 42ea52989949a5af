import Foundation
import Testing
@testable import Marginalia

@Suite struct SQLiteDatabaseTests {
    func makeTable() throws -> SQLiteDatabase {
        let db = try SQLiteDatabase.inMemory()
        try db.executeScript(
            sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE, score REAL, data BLOB) STRICT")
        return db
    }

    @Test func bindsAndReadsEveryStorageClass() throws {
        let db = try makeTable()
        try db.execute(sql: "INSERT INTO t (id, name, score, data) VALUES (?, ?, ?, ?)",
                       arguments: [7, "ştiinţă ș", 2.5, [UInt8]([0, 1, 255])])
        try db.execute(sql: "INSERT INTO t (id, name, score, data) VALUES (?, ?, ?, ?)", arguments: [8, nil, nil, nil])
        let rows = try db.fetchAll(sql: "SELECT id, name, score, data FROM t ORDER BY id") { row in
            [row.value(at: 0), row.value(at: 1), row.value(at: 2), row.value(at: 3)]
        }
        #expect(rows == [
            [.integer(7), .text("ştiinţă ș"), .real(2.5), .blob([0, 1, 255])],
            [.integer(8), .null, .null, .null],
        ])
        #expect(try db.text(sql: "SELECT name FROM t WHERE id = ?", arguments: [7]) == "ştiinţă ș")
        #expect(try db.int(sql: "SELECT count(*) FROM t") == 2)
    }

    @Test func readingNullAsTextThrows() throws {
        let db = try makeTable()
        try db.execute(sql: "INSERT INTO t (id) VALUES (1)")
        #expect(throws: SQLiteError.self) {
            _ = try db.fetchOne(sql: "SELECT name FROM t") { try $0.string(0) }
        }
        #expect(try db.fetchOne(sql: "SELECT name FROM t") { $0.optionalString(0) } == .some(nil))
    }

    @Test func errorsCarryExtendedCodeMessageAndSQL() throws {
        let db = try makeTable()
        try db.execute(sql: "INSERT INTO t (id, name) VALUES (1, 'a')")
        let sql = "INSERT INTO t (id, name) VALUES (2, ?)"
        let error = try #require(throws: SQLiteError.self) { try db.execute(sql: sql, arguments: ["a"]) }
        #expect(error.extendedCode == 2067)  // SQLITE_CONSTRAINT_UNIQUE
        #expect(error.isConstraintViolation)
        #expect(error.message == "UNIQUE constraint failed: t.name")
        #expect(error.sql == sql)
        #expect(error.description
            == "SQLite error 2067 (constraint failed): UNIQUE constraint failed: t.name — in: \(sql)")
    }

    @Test func argumentCountMustMatch() throws {
        let db = try makeTable()
        let error = try #require(throws: SQLiteError.self) {
            try db.execute(sql: "INSERT INTO t (id, name) VALUES (?, ?)", arguments: [1])
        }
        #expect(error.message == "1 arguments for 2 parameters")
    }

    @Test func transactionCommitsOnReturnAndRollsBackOnThrow() throws {
        let db = try makeTable()
        try db.transaction(.immediate) {
            try db.execute(sql: "INSERT INTO t (id) VALUES (1)")
        }
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try db.transaction(.immediate) {
                try db.execute(sql: "INSERT INTO t (id) VALUES (2)")
                throw Failure()
            }
        }
        #expect(try db.fetchAll(sql: "SELECT id FROM t ORDER BY id") { try $0.int(0) } == [1])
        #expect(!db.isInTransaction)
    }

    @Test func nestedTransactionIsASavepoint() throws {
        let db = try makeTable()
        struct Failure: Error {}
        try db.transaction(.immediate) {
            try db.execute(sql: "INSERT INTO t (id) VALUES (1)")
            try? db.transaction(.immediate) {
                try db.execute(sql: "INSERT INTO t (id) VALUES (2)")
                throw Failure()
            }
            try db.savepoint {
                try db.execute(sql: "INSERT INTO t (id) VALUES (3)")
            }
        }
        #expect(try db.fetchAll(sql: "SELECT id FROM t ORDER BY id") { try $0.int(0) } == [1, 3])
    }

    @Test func nestedQueriesOfTheSameStatementDoNotInterfere() throws {
        let db = try makeTable()
        for id in 1...3 { try db.execute(sql: "INSERT INTO t (id) VALUES (?)", arguments: [id]) }
        var pairs: [[Int]] = []
        let sql = "SELECT id FROM t WHERE id >= ? ORDER BY id"
        try db.forEachRow(sql: sql, arguments: [2]) { outer in
            let inner = try db.fetchAll(sql: sql, arguments: [1]) { try $0.int(0) }
            pairs.append([try outer.int(0)] + inner)
        }
        #expect(pairs == [[2, 1, 2, 3], [3, 1, 2, 3]])
    }

    @Test func fetchOneStopsAtTheFirstRow() throws {
        let db = try makeTable()
        for id in 1...3 { try db.execute(sql: "INSERT INTO t (id) VALUES (?)", arguments: [id]) }
        var seen = 0
        let first = try db.fetchOne(sql: "SELECT id FROM t ORDER BY id") { row -> Int in
            seen += 1
            return try row.int(0)
        }
        #expect(first == 1)
        #expect(seen == 1)
    }

    @Test func attachReadOnlyRefusesMissingFilesAndWrites() throws {
        let directory = try TemporaryDirectory()
        let db = try SQLiteDatabase.inMemory()
        let missing = directory.path("missing?#%.db")
        let error = try #require(throws: SQLiteError.self) { try db.attachReadOnly(path: missing, as: "other") }
        #expect(error.isCantOpen)
        #expect(!FileManager.default.fileExists(atPath: missing))

        let existing = directory.path("with space & ş ?.db")
        let writer = try SQLiteDatabase(path: SQLiteDatabase.fileURI(path: existing, readOnly: false))
        try writer.executeScript(sql: "CREATE TABLE x (v); INSERT INTO x VALUES (1)")
        #expect(FileManager.default.fileExists(atPath: existing))
        try db.attachReadOnly(path: existing, as: "other")
        #expect(try db.int(sql: "SELECT v FROM other.x") == 1)
        let write = try #require(throws: SQLiteError.self) { try db.execute(sql: "INSERT INTO other.x VALUES (2)") }
        #expect(write.isReadOnly)
        try db.detach("other")
        #expect(try !db.isAttached("other"))
    }

    @Test func fileURIEscapesReservedCharacters() {
        #expect(SQLiteDatabase.fileURI(path: "/a b/c?d#e%f.db", readOnly: true)
            == "file:/a%20b/c%3Fd%23e%25f.db?mode=ro")
        #expect(SQLiteDatabase.fileURI(path: "rel/ş.db", readOnly: false) == "file:rel/%C5%9F.db")
    }
}
