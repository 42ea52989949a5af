import Foundation
import Testing
@testable import Marginalia

/// Stores and archives made by earlier releases open, migrate, verify and import, forever.
@Suite struct SchemaFixtureTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    static let directory = fixtures.appendingPathComponent("schema-1")

    static func lines(_ name: String, in folder: URL = directory) throws -> [String] {
        try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            .split(separator: "\n").map(String.init)
    }

    /// Each later schema's store and archive, as `(folder, store file, archive file)`.
    static let later = [
        ("schema-3", "user-schema3.db", "archive-format1-schema3.jsonl.gz"),
        ("schema-4", "user-schema4.db", "archive-format2-schema4.jsonl.gz"),
        ("schema-5", "user-schema5.db", "archive-format2-schema5.jsonl.gz"),
        ("schema-6", "user-schema6.db", "archive-format3-schema6.jsonl.gz"),
        ("schema-7", "user-schema7.db", "archive-format3-schema7.jsonl.gz"),
        ("schema-8", "user-schema8.db", "archive-format4-schema8.jsonl.gz"),
    ]

    /// A store that encrypted in a folder before rosters (schema 8 remembered its recipients by the folder's path)
    /// keeps encrypting after the upgrade, wherever it syncs: its first round, in a folder at another path, founds
    /// a roster and writes an encrypted segment with every change it is to publish.
    @Test func aSchemaEightStoreThatEncryptedKeepsEncryptingWhereverItSyncs() throws {
        let fixture = Self.fixtures.appendingPathComponent("schema-8")
        let temporary = try TemporaryDirectory()
        let path = temporary.path("user.db")
        try FileManager.default.copyItem(atPath: fixture.appendingPathComponent("user-schema8.db").path, toPath: path)
        let storeFile = try SQLiteDatabase(path: path, mode: .readOnly)
            .text(sql: "SELECT value FROM meta WHERE key = 'store_file'")
        let store = try AnnotationStore.open(path: path, access: .readWrite)
        let recipient = try AgeRecipient(text: "age1auq8g49wc0060symelkfe42elkr24p4cvq4qz5u6xpnmnvvmr97s4csna4")
        #expect(try SyncLedger(db: store.db).recipients(forFolder: "/anywhere") == [recipient])
        #expect(try store.db.int(sql: "SELECT count(*) FROM meta WHERE key LIKE 'sync_%' OR key = 'store_file'") == 0)
        // Schema 10 keeps the store file's identity with what the adapters keep, as schema 8 left it.
        #expect(storeFile != nil)
        #expect(try AdapterState(db: store.db, owner: "sync").value(of: "store_file") == storeFile)
        let folder = temporary.path("Moved")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let report = try store.sync(folder: folder)
        #expect(try store.roster() != nil)
        let written = try #require(report.written)
        // Every change but the 2 the laptop's segment brought (receipt 2): those are the laptop's to publish.
        #expect(written.changes == (try Self.lines("change-ids.txt", in: fixture)).count - 2, "\(report)")
        let head = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(written.path)")).prefix(22)
        #expect(String(decoding: head, as: UTF8.self) == "age-encryption.org/v1\n")
    }

    @Test(arguments: later)
    func aLaterSchemasStoreOpensVerifiesAndItsArchiveImports(folder: String, store: String, archive: String) throws {
        let fixture = Self.fixtures.appendingPathComponent(folder)
        let temporary = try TemporaryDirectory()
        let path = temporary.path("user.db")
        try FileManager.default.copyItem(atPath: fixture.appendingPathComponent(store).path, toPath: path)
        let opened = try AnnotationStore.open(path: path, access: .readWrite)
        #expect(try opened.verify().problems == [])
        let changeIDs = try opened.db.fetchAll(sql: "SELECT change_id FROM changes ORDER BY seq") { try $0.string(0) }
        #expect(changeIDs == (try Self.lines("change-ids.txt", in: fixture)))
        let annotationIDs = try opened.db.fetchAll(sql: "SELECT id FROM annotations ORDER BY id") { try $0.string(0) }
        #expect(annotationIDs == (try Self.lines("annotation-ids.txt", in: fixture)))
        #expect(try opened.db.int(sql: "PRAGMA user_version") == Int64(UserSchema.currentVersion))

        let archivePath = fixture.appendingPathComponent(archive).path
        let empty = try AnnotationStore.open(path: temporary.path("empty.db"), access: .create)
        let report = try empty.importArchive(path: archivePath)
        #expect(report.newChanges == changeIDs.count)
        #expect(try empty.verify().problems == [])
        // An archive with a head (format 2 on) proves the store's history up to it, and the store that imported
        // it rebuilt the same chain.
        if try ArchiveReader(path: archivePath).read().header.head != nil {
            #expect(try opened.verify(against: archivePath).problems == [])
            #expect(try empty.verify(against: archivePath).problems == [])
            #expect(try opened.receipts().map(\.kind) == [.import, .sync])
        }
    }

    @Test func schemaOneStoreOpensMigratesAndVerifiesWithEveryIDIntact() throws {
        let temporary = try TemporaryDirectory()
        let path = temporary.path("user.db")
        try FileManager.default.copyItem(atPath: Self.directory.appendingPathComponent("user-schema1.db").path,
                                         toPath: path)
        let store = try AnnotationStore.open(path: path, access: .readWrite)
        let report = try store.verify()
        #expect(report.problems == [])
        let changeIDs = try store.db.fetchAll(sql: "SELECT change_id FROM changes ORDER BY seq") { try $0.string(0) }
        #expect(changeIDs == (try Self.lines("change-ids.txt")))
        let annotationIDs = try store.db.fetchAll(sql: "SELECT id FROM annotations ORDER BY id") { try $0.string(0) }
        #expect(annotationIDs == (try Self.lines("annotation-ids.txt")))
        #expect(try store.db.int(sql: "PRAGMA user_version") == Int64(UserSchema.currentVersion))
    }

    @Test func formatOneArchiveImportsIntoAnEmptyStore() throws {
        let temporary = try TemporaryDirectory()
        let store = try AnnotationStore.open(path: temporary.path("user.db"), access: .create)
        let report = try store.importArchive(
            path: Self.directory.appendingPathComponent("archive-format1.jsonl.gz").path)
        #expect(report.newChanges == (try Self.lines("change-ids.txt")).count)
        let annotationIDs = try store.db.fetchAll(sql: "SELECT id FROM annotations ORDER BY id") { try $0.string(0) }
        #expect(annotationIDs == (try Self.lines("annotation-ids.txt")))
        #expect(try store.verify().problems == [])
    }

    /// The archive is the same text on the wire whatever schema the store keeps: the schema-4 fixture store, opened
    /// (and so migrated) by this build, exports exactly the lines its schema-4 archive holds, but for the header's
    /// creation time and schema version.
    @Test func aMigratedStoreExportsTheSameLinesAsBeforeItsMigration() throws {
        let fixture = Self.fixtures.appendingPathComponent("schema-4")
        let temporary = try TemporaryDirectory()
        let path = temporary.path("user.db")
        try FileManager.default.copyItem(atPath: fixture.appendingPathComponent("user-schema4.db").path, toPath: path)
        let store = try AnnotationStore.open(path: path, access: .readWrite)
        let exported = temporary.path("again.jsonl.gz")
        try store.exportArchive(toFile: exported)
        let before = try ArchiveFixtures.lines(ofArchive: fixture.appendingPathComponent("archive-format2-schema4.jsonl.gz").path)
        // Format 4 adds the receipts the store holds, before the changes, and names each received change's: without
        // them, the lines are those of the archive written before the migration.
        let receipts = try ArchiveFixtures.lines(ofArchive: exported).filter { $0.hasPrefix(#"{"type":"receipt","#) }
        #expect(!receipts.isEmpty)
        let after = ArchiveFixtures.withoutReceipts(try ArchiveFixtures.lines(ofArchive: exported))
        #expect(after.count == before.count && before.count > 20)
        #expect(Array(after.dropFirst()) == Array(before.dropFirst()))
        func withoutTimeAndSchema(_ header: String) throws -> JSONValue {
            guard case .object(var object) = try JSONParser.parse(header) else { return .null }
            object["createdAt"] = nil
            object["schemaVersion"] = nil
            // The format moved on too (3: changes may carry madeAt; these, recorded before, carry none).
            object["formatVersion"] = nil
            return .object(object)
        }
        #expect(try withoutTimeAndSchema(after[0]) == withoutTimeAndSchema(before[0]))
        #expect(after[0].contains("\"schemaVersion\":\(UserSchema.currentVersion)"))
    }
}
