import Foundation
import Testing
@testable import Marginalia

/// Archives carry the head of the log's hash chain; a restore rebuilds exactly that chain, and a store is proved
/// unchanged up to a backup's head.
@Suite struct ArchiveHeadTests {
    typealias Fixtures = ArchiveFixtures

    /// A populated store (12 changes) and its backup.
    final class Scene {
        let directory: TemporaryDirectory
        let clock = ManualClock(ArchiveFixtures.epoch)
        let store: AnnotationStore
        var path: String { directory.path("user.db") }
        var backup: String { directory.path("backup.jsonl.gz") }

        init() throws {
            directory = try TemporaryDirectory()
            store = try ArchiveFixtures.store(directory, clock: clock)
            try Fixtures.populate(store, clock: clock)
            _ = try store.backup(to: backup)
        }

        /// Runs `sql` on the store's file through another connection, with the log's triggers dropped for it and
        /// put back as they were.
        func rewrite(_ sql: String) throws {
            let db = try SQLiteDatabase(path: path, mode: .readWrite)
            let triggers = try db.fetchAll(
                sql: "SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'changes' ORDER BY name"
            ) { try $0.string(0) }
            try db.transaction(.immediate) {
                try db.executeScript(sql: "DROP TRIGGER changes_refuse_update; DROP TRIGGER changes_refuse_delete")
                try db.executeScript(sql: sql)
                for text in triggers { try db.executeScript(sql: text) }
            }
        }
    }

    @Test func aBackupsHeaderCarriesTheStoresHeadAndItsChangesInLogOrder() throws {
        let scene = try Scene()
        let header = try ArchiveRoundTripTests.header(of: scene.backup)
        #expect(header.formatVersion == ArchiveFormat.version)
        #expect(header.head == (try scene.store.logHead()))
        #expect(header.head?.sequence == 12)
        let lines = try Fixtures.lines(ofArchive: scene.backup)
        let ids = lines.compactMap { line -> String? in
            guard case .object(let object)? = try? JSONParser.parse(line), object["type"] == .string("change"),
                  case .string(let id)? = object["changeId"] else { return nil }
            return id
        }
        #expect(ids == (try scene.store.db.fetchAll(sql: "SELECT change_id FROM changes ORDER BY seq") {
            try $0.string(0)
        }))
    }

    @Test func aRestoreRebuildsTheSameChainAndTheStoreVerifiesAgainstTheBackup() throws {
        let scene = try Scene()
        let digests = try scene.store.db.fetchAll(sql: "SELECT seq, change_id, digest FROM changes ORDER BY seq") {
            [try $0.string(0), try $0.string(1), try $0.string(2)]
        }
        scene.clock.advance(1000)
        try scene.store.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.4"))
        // Later changes are not covered, and do not matter.
        let report = try scene.store.verify(against: scene.backup)
        #expect(report.problems == [] && report.against == LogHead(sequence: 12, digest: digests[11][2]))

        let restored = scene.directory.path("restored.db")
        _ = try AnnotationStore.restore(archive: scene.backup, to: restored)
        let again = try AnnotationStore.open(path: restored, access: .readOnly)
        #expect(try again.db.fetchAll(sql: "SELECT seq, change_id, digest FROM changes ORDER BY seq") {
            [try $0.string(0), try $0.string(1), try $0.string(2)]
        } == digests)
        #expect(try again.verify(against: scene.backup).problems == [])
        let receipts = try again.receipts()
        #expect(receipts.map(\.kind) == [.restore] && receipts.first?.file == scene.backup)
        #expect(receipts.first?.sha256 == (try SHA256Digest.hex(of: try Fixtures.read(scene.backup))))
        #expect(try again.db.int(sql: "SELECT count(*) FROM changes WHERE receipt = 1") == 12)
    }

    @Test func theNewestChangesRemovedPassVerifyButNotVerifyAgainstTheBackup() throws {
        let scene = try Scene()
        try scene.rewrite("DELETE FROM changes WHERE seq >= 11")
        let plain = try scene.store.verify()
        #expect(plain.chainBreak == nil)
        let report = try scene.store.verify(against: scene.backup)
        #expect(report.problems.contains("changes: \(scene.backup) holds the history up to seq 12, but the log ends "
            + "at seq 10: changes were removed since it was written"))
    }

    @Test func aRewriteWithEveryLaterDigestRecomputedFailsOnlyAgainstTheBackup() throws {
        let scene = try Scene()
        // An edit of seq 6's note, then every digest from there recomputed as the store would.
        try scene.rewrite("UPDATE changes SET fields = json_set(fields, '$.note', 'I never wrote this') WHERE seq = 6")
        let db = try SQLiteDatabase(path: scene.path, mode: .readWrite)
        var digest = try #require(try db.text(sql: "SELECT digest FROM changes WHERE seq = 5"))
        var recomputed: [(Int64, String)] = []
        try db.forEachRow(sql: "SELECT \(Change.columns), seq FROM changes WHERE seq >= 6 ORDER BY seq") { row in
            digest = try ChangeDigest.next(after: digest, row: row)
            recomputed.append((try row.int64(Change.columnCount), digest))
        }
        try scene.rewrite(recomputed.map { "UPDATE changes SET digest = '\($0.1)' WHERE seq = \($0.0);" }
            .joined(separator: "\n"))
        #expect(try scene.store.verify().chainBreak == nil)
        let report = try scene.store.verify(against: scene.backup)
        #expect(report.problems.contains { $0.hasPrefix("changes: the history up to seq 12 differs from the one ") })
    }

    @Test func anArchiveWhoseChangesWereReorderedIsNotRestored() throws {
        let scene = try Scene()
        var lines = try Fixtures.lines(ofArchive: scene.backup)
        lines.swapAt(2, 3)
        let swapped = scene.directory.path("swapped.jsonl.gz")
        try Fixtures.writeArchive(lines, to: swapped)
        let error = try #require(thrownError(ArchiveError.self) {
            _ = try AnnotationStore.restore(archive: swapped, to: scene.directory.path("other.db"))
        })
        #expect(error.kind == .mismatch)
        #expect(error.reason.hasPrefix("its changes rebuild a log whose head is seq 12, digest "))
        // Imported into a store that has changes of its own, the same file merges like any other.
        let other = try ArchiveFixtures.store(scene.directory, "busy.db", clock: scene.clock)
        try other.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.4"))
        #expect(try other.importArchive(path: swapped).newChanges == 12)
        #expect(try other.verify().problems == [])
    }

    @Test func aFormatOneArchiveHasNoHeadToVerifyAgainst() throws {
        let scene = try Scene()
        let old = SchemaFixtureTests.directory.appendingPathComponent("archive-format1.jsonl.gz").path
        let error = try #require(thrownError(ArchiveError.self) { _ = try scene.store.verify(against: old) })
        #expect(error.kind == .invalidRecord && error.line == 1)
        #expect(error.reason == "it is an archive of format 1, whose header carries no head of the log to verify "
            + "against (format 2 on does)")
    }

    @Test func aHeadInAFormatOneHeaderOrNoneInFormatTwoIsRefused() throws {
        let scene = try Scene()
        var lines = try Fixtures.lines(ofArchive: scene.backup)
        lines[0] = lines[0].replacingOccurrences(of: #""formatVersion":\#(ArchiveFormat.version)"#,
                                                 with: #""formatVersion":1"#)
        let first = scene.directory.path("one.jsonl.gz")
        try Fixtures.writeArchive(lines, to: first)
        let one = try #require(thrownError(ArchiveError.self) { _ = try ArchiveReader(path: first).read() })
        #expect(one.line == 1 && one.reason == #"header record: field "head": unknown field"#)
        var headless = try Fixtures.lines(ofArchive: scene.backup)
        headless[0] = try #require(headless[0].components(separatedBy: #","head":"#).first) + "}"
        let second = scene.directory.path("two.jsonl.gz")
        try Fixtures.writeArchive(headless, to: second)
        let two = try #require(thrownError(ArchiveError.self) { _ = try ArchiveReader(path: second).read() })
        #expect(two.line == 1 && two.reason == #"header record: field "head": required"#)
    }
}
