import Foundation
import Testing
@testable import Marginalia

@Suite struct UserSchemaTests {
    /// Each schema object as (type, name, table, SQL with white space collapsed).
    func schema(of db: SQLiteDatabase) throws -> [[String]] {
        try db.fetchAll(sql: "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name") { row in
            let sql = row.optionalString(3) ?? ""
            return [try row.string(0), try row.string(1), try row.string(2),
                    sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")]
        }
    }

    @Test func migrationsProduceExactlyTheReadableSchema() throws {
        let migrated = try UserDatabase.open(path: ":memory:", access: .create)
        let readable = try SQLiteDatabase.inMemory()
        let text = try String(contentsOf: Samples.schemas.appendingPathComponent("user.sql"), encoding: .utf8)
        try readable.executeScript(sql: text)
        #expect(try schema(of: migrated) == schema(of: readable))
        #expect(try migrated.int(sql: "PRAGMA application_id") == Int64(UserSchema.applicationID))
        #expect(try migrated.int(sql: "PRAGMA user_version") == Int64(UserSchema.currentVersion))
        #expect(text.contains("PRAGMA application_id = \(UserSchema.applicationID);"))
        #expect(text.contains("PRAGMA user_version = \(UserSchema.currentVersion);"))
    }

    @Test func aNewStoreHasADeviceIdWALAndFullSync() throws {
        let directory = try TemporaryDirectory()
        let db = try UserDatabase.open(path: directory.path("user.db"), access: .create, newDeviceID: { "device-1" })
        #expect(try db.text(sql: "SELECT value FROM meta WHERE key = 'device_id'") == "device-1")
        #expect(try db.text(sql: "PRAGMA journal_mode") == "wal")
        #expect(try db.int(sql: "PRAGMA synchronous") == 2)
        #expect(try db.int(sql: "PRAGMA foreign_keys") == 1)
    }

    @Test func theChangeLogRefusesUpdateAndDelete() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: makeSource([("d", [("d.1", "A fost odată")])]))
        try store.createAnnotation(.highlight, at: AnchorRequest(passage: "d.1"))
        let update = try #require(throws: SQLiteError.self) {
            try store.db.execute(sql: "UPDATE changes SET op = 'edit'")
        }
        #expect(update.message == "changes is append-only: a change cannot be updated")
        let delete = try #require(throws: SQLiteError.self) { try store.db.execute(sql: "DELETE FROM changes") }
        #expect(delete.message == "changes is append-only: a change cannot be deleted")
        #expect(try store.changeCount() == 1)
    }

    @Test func aStoreFromANewerVersionIsRefusedAndLeftByteIdentical() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("user.db")
        do {
            let db = try UserDatabase.open(path: path, access: .create)
            try db.executeScript(sql: "PRAGMA user_version = \(UserSchema.currentVersion + 1)")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        for access in [AnnotationStore.Access.readOnly, .readWrite, .create] {
            let error = try #require(thrownError(StoreError.self) {
                _ = try AnnotationStore.open(path: path, access: access)
            })
            #expect(error == .newerSchema(
                path: path, found: UserSchema.currentVersion + 1, supported: UserSchema.currentVersion))
            #expect(error.description.contains("created by a newer version of marginalia"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func foreignFilesAreRefusedUntouched() throws {
        let directory = try TemporaryDirectory()
        let text = directory.path("notes.txt")
        try Data("just some text, not a database at all".utf8).write(to: URL(fileURLWithPath: text))
        #expect(throws: MarginaliaError(StoreError.notAStore(path: text, reason: "it is not an SQLite database"))) {
            _ = try AnnotationStore.open(path: text, access: .create)
        }
        let other = directory.path("other.db")
        try SQLiteDatabase(path: other).executeScript(sql: "CREATE TABLE x (v)")
        let before = try Data(contentsOf: URL(fileURLWithPath: other))
        #expect(throws: MarginaliaError(StoreError.notAStore(
            path: other, reason: "its application_id is 0, not \(UserSchema.applicationID)"))) {
            _ = try AnnotationStore.open(path: other, access: .readWrite)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: other)) == before)
        let missing = directory.path("missing.db")
        #expect(throws: MarginaliaError(StoreError.storeMissing(path: missing))) {
            _ = try AnnotationStore.open(path: missing, access: .readOnly)
        }
        #expect(!FileManager.default.fileExists(atPath: missing))
    }
}
