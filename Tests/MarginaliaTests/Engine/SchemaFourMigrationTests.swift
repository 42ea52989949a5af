import Foundation
import Testing
@testable import Marginalia

/// The migration to schema 4 (the hash chain and the receipts) is whole or not at all.
@Suite struct SchemaFourMigrationTests {
    /// A copy of the schema-3 fixture store in a temporary directory.
    func schemaThreeStore(_ directory: TemporaryDirectory) throws -> String {
        let path = directory.path("user.db")
        try FileManager.default.copyItem(
            atPath: SchemaFixtureTests.fixtures.appendingPathComponent("schema-3/user-schema3.db").path, toPath: path)
        return path
    }

    /// The migrations with step `index` of version 4 followed by a step that fails.
    func failing(after index: Int) throws -> [UserSchema.Migration] {
        let version4 = try #require(UserSchema.migrations.first { $0.version == 4 })
        struct Injected: Error {}
        let steps = Array(version4.steps.prefix(index)) + [.code({ _ in throw Injected() })]
        return UserSchema.migrations.filter { $0.version < 4 } + [UserSchema.Migration(version: 4, steps: steps)]
    }

    @Test func aFailureAtAnyStepLeavesTheSchemaThreeStoreIntact() throws {
        let version4 = try #require(UserSchema.migrations.first { $0.version == 4 })
        #expect(version4.steps.count == 7)
        for index in 0...version4.steps.count {
            let directory = try TemporaryDirectory()
            let path = try schemaThreeStore(directory)
            let before = try canonicalDump(path)
            let schemaBefore = try SQLiteDatabase(path: path, mode: .readOnly).fetchAll(
                sql: "SELECT type, name, sql FROM sqlite_schema ORDER BY name") { row in
                    [try row.string(0), try row.string(1), row.optionalString(2) ?? ""]
                }
            let db = try SQLiteDatabase(path: path, mode: .readWrite)
            #expect(throws: (any Error).self, "failure after step \(index)") {
                try UserDatabase.migrate(db, migrations: try failing(after: index), newDeviceID: { "x" })
            }
            #expect(try db.int(sql: "PRAGMA user_version") == 3, "failure after step \(index)")
            let schemaAfter = try db.fetchAll(sql: "SELECT type, name, sql FROM sqlite_schema ORDER BY name") { row in
                [try row.string(0), try row.string(1), row.optionalString(2) ?? ""]
            }
            #expect(schemaAfter == schemaBefore, "failure after step \(index)")
            #expect(try canonicalDump(path) == before, "failure after step \(index)")
            // The real migration then succeeds, and the store verifies.
            let store = try AnnotationStore.open(path: path, access: .readWrite)
            #expect(try store.db.int(sql: "PRAGMA user_version") == Int64(UserSchema.currentVersion))
            #expect(try store.verify().problems == [])
        }
    }

    @Test func theMigrationChainsEveryExistingRowAndMarksWhatCameFromElsewhere() throws {
        let directory = try TemporaryDirectory()
        let path = try schemaThreeStore(directory)
        let old = try SQLiteDatabase(path: path, mode: .readOnly)
        let device = try #require(try old.text(sql: "SELECT value FROM meta WHERE key = 'device_id'"))
        let count = try #require(try old.int(sql: "SELECT count(*) FROM changes"))
        let foreign = try #require(try old.int(sql: "SELECT count(*) FROM changes WHERE device <> ?",
                                               arguments: [device]))
        #expect(foreign > 0 && foreign < count)
        let store = try AnnotationStore.open(path: path, access: .readWrite)
        let report = try store.verify()
        #expect(report.problems == [] && report.chainBreak == nil)
        #expect(report.head.sequence == count)
        #expect(try store.db.int(sql: "SELECT count(*) FROM changes WHERE digest IS NULL") == 0)
        #expect(try store.db.text(sql: "SELECT digest FROM changes ORDER BY seq DESC LIMIT 1") == report.head.digest)
        let receipts = try store.receipts()
        #expect(receipts.map(\.kind) == [.unrecorded])
        #expect(receipts.first?.newChanges == Int(foreign) && receipts.first?.file == nil)
        #expect(try store.db.int(sql: "SELECT count(*) FROM changes WHERE receipt IS NOT NULL") == foreign)
        #expect(try store.db.int(sql: """
            SELECT count(*) FROM changes WHERE receipt IS NULL AND device <> (SELECT number FROM devices WHERE id = ?)
            """,
                                 arguments: [device]) == 0)
    }
}
