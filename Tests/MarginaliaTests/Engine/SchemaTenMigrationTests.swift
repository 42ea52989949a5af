import Foundation
import Testing
@testable import Marginalia

/// The migration to schema 10 moves what the adapters kept in `meta` (the records of stepped imports, the store
/// file's identity) to `adapter_state`, where they read it from then on.
@Suite struct SchemaTenMigrationTests {
    /// A record of a stepped import, as version 9 kept it.
    static func record(archive: String, read: Int) -> String {
        """
        {"archive":"\(archive)","receipt":1,"line":\(read),"accept_future":false,"max_clock_drift":300000,\
        "size":10,"sha256":"\(String(repeating: "a", count: 64))","changes_read":\(read),"new_changes":0,\
        "duplicates":0,"quarantined":0,"changes_total":100}
        """
    }

    /// A schema-9 store at `path` with two imports under way and `storeFile` as the file its id belongs to.
    static func schemaNineStore(at path: String, storeFile: String) throws {
        let db = try SQLiteDatabase(path: path)
        try db.executeScript(sql: "PRAGMA journal_mode = WAL")
        try UserDatabase.migrate(db, migrations: UserSchema.migrations.filter { $0.version <= 9 },
                                 newDeviceID: { "device-9" })
        try db.execute(
            sql: "INSERT INTO meta (key, value) VALUES (?, ?), (?, ?), (?, ?), ('reconciled_edition', 'e1')",
            arguments: ["store_file", storeFile,
                        "pending_import:user.db-import-a", record(archive: "a.jsonl.gz", read: 5),
                        "pending_import:user.db-import-b", record(archive: "b.jsonl.gz", read: 7)])
        #expect(try db.int(sql: "PRAGMA user_version") == 9)
    }

    static func metaKeys(_ db: SQLiteDatabase) throws -> [String] {
        try db.fetchAll(sql: "SELECT key FROM meta ORDER BY key") { try $0.string(0) }
    }

    @Test func theImportRecordsAndTheStoreFileMoveOutOfMeta() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("user.db")
        try Self.schemaNineStore(at: path, storeFile: "1:2")
        // Read as it is, unmigrated: this version reads no record where version 9 kept it.
        #expect(try CommittedState.read(path: path).imports == [])

        let db = try UserDatabase.open(path: path, access: .readWrite)
        #expect(try db.int(sql: "PRAGMA user_version") == 10)
        #expect(try Self.metaKeys(db) == ["created_at", "device_id", "reconciled_edition"])
        let rows = try db.fetchAll(sql: "SELECT owner, name, value FROM adapter_state ORDER BY owner, name") {
            [try $0.string(0), try $0.string(1), try $0.string(2)]
        }
        #expect(rows == [
            ["archive", "pending_import:user.db-import-a", Self.record(archive: "a.jsonl.gz", read: 5)],
            ["archive", "pending_import:user.db-import-b", Self.record(archive: "b.jsonl.gz", read: 7)],
            ["sync", "store_file", "1:2"],
        ])
        #expect(try CommittedState.read(path: path).imports == [
            CommittedState.ImportInProgress(archive: "a.jsonl.gz", changesRead: 5, total: 100),
            CommittedState.ImportInProgress(archive: "b.jsonl.gz", changesRead: 7, total: 100),
        ])
    }

    /// The rows move in the migration's one transaction: a migration that fails after moving them leaves the
    /// schema-9 store as it was, its rows in `meta`.
    @Test func aFailedMigrationLeavesTheRowsInMeta() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("user.db")
        try Self.schemaNineStore(at: path, storeFile: "1:2")
        let before = try canonicalDump(path)
        struct Injected: Error {}
        let failing = UserSchema.migrations.filter { $0.version <= 9 }
            + [UserSchema.Migration(version: 10, steps: [.sql(UserSchema.version10), .code({ _ in throw Injected() })])]
        let db = try SQLiteDatabase(path: path, mode: .readWrite)
        #expect(throws: Injected.self) { try UserDatabase.migrate(db, migrations: failing, newDeviceID: { "x" }) }
        #expect(try db.int(sql: "PRAGMA user_version") == 9)
        #expect(try !AdapterState.isKept(in: db))
        #expect(try canonicalDump(path) == before)
        #expect(try Self.metaKeys(db) == ["created_at", "device_id", "pending_import:user.db-import-a",
                                          "pending_import:user.db-import-b", "reconciled_edition", "store_file"])
    }

    /// The store's open finishes the imports from where they are kept now: their copies are gone, so both are
    /// abandoned and their records removed.
    @Test func theMovedRecordsAreTheOnesTheOpenFinishes() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("user.db")
        try Self.schemaNineStore(at: path, storeFile: "1:2")
        let store = try AnnotationStore.open(path: path, access: .readWrite)
        #expect(store.abandonedImports.map(\.archive) == ["a.jsonl.gz", "b.jsonl.gz"])
        #expect(store.abandonedImports.map(\.problem) == [.missing, .missing])
        #expect(try store.db.int(sql: "SELECT count(*) FROM adapter_state WHERE owner = 'archive'") == 0)
        #expect(try CommittedState.read(path: path).imports == [])
    }

    /// Sync reads the store file's identity where it is kept now: the file it names keeps its id, another takes a
    /// new one.
    @Test func syncReadsTheMovedStoreFile() throws {
        let directory = try TemporaryDirectory()
        let same = directory.path("same.db")
        let copy = directory.path("copy.db")
        try Self.schemaNineStore(at: same, storeFile: "")
        let identity: String? = FileIdentity.of(same)
        let file = try #require(identity)
        try SQLiteDatabase(path: same).execute(sql: "UPDATE meta SET value = ? WHERE key = 'store_file'",
                                               arguments: [file])
        try Self.schemaNineStore(at: copy, storeFile: file)
        for (path, renews) in [(same, false), (copy, true)] {
            let store = try AnnotationStore.open(path: path, access: .readWrite)
            let folder = directory.path("folder-\(renews)")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let report = try store.sync(folder: folder)
            #expect((report.renewedFromDeviceID == "device-9") == renews, "\(path)")
            let kept = try store.db.text(sql: "SELECT value FROM adapter_state WHERE owner = 'sync' AND name = ?",
                                         arguments: ["store_file"])
            #expect(kept == FileIdentity.of(path), "\(path)")
        }
    }
}
