import Foundation
import Testing
@testable import Marginalia
import MarginaliaTestSupport

/// The log's hash chain catches every rewrite of a past change made behind the store's back: through raw SQL on
/// the file, with the append-only triggers dropped and put back exactly as they were.
@Suite struct HashChainTests {
    /// A store with nine changes: `a` created, its note overwritten twice, `b` created and deleted, `c` created,
    /// a reading position set, `a` tagged, `c` edited.
    final class Tampered {
        let directory: TemporaryDirectory
        let path: String
        let ids: [String]

        init() throws {
            directory = try TemporaryDirectory()
            path = directory.path("user.db")
            let store = try makeStore(directory, source: makeSource([("d", [("d.1", "A fost odată ca-n povești")])]))
            let a = try store.createAnnotation(.note, at: AnchorRequest(passage: "d.1"), note: "prima").id
            try store.editAnnotation(id: a, note: "a doua")
            try store.editAnnotation(id: a, note: "a treia")
            let b = try store.createAnnotation(.highlight, at: AnchorRequest(passage: "d.1", start: 2, end: 6)).id
            try store.deleteAnnotation(id: b)
            let c = try store.createAnnotation(.bookmark, at: AnchorRequest(passage: "d.1")).id
            try store.setPosition(document: "d", at: TextPosition(passage: "d.1", offset: 3))
            try store.editAnnotation(id: a, addTags: ["tara"])
            try store.editAnnotation(id: c, note: "semn")
            ids = [a, b, c]
            #expect(try store.verify().problems == [])
        }

        /// Runs `sql` on the file through a plain SQLite connection, with both triggers of the log dropped for it
        /// and put back exactly as they were.
        func rewrite(_ sql: String, arguments: StatementArguments = []) throws {
            let db = try SQLiteDatabase(path: path, mode: .readWrite)
            let triggers = try db.fetchAll(
                sql: "SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'changes' ORDER BY name"
            ) { (try $0.string(0), try $0.string(1)) }
            #expect(triggers.count == 2)
            try db.transaction(.immediate) {
                for (name, _) in triggers { try db.execute(sql: "DROP TRIGGER \(name)") }
                try db.execute(sql: sql, arguments: arguments)
                for (_, text) in triggers { try db.executeScript(sql: text) }
            }
        }

        /// The change id at `seq`.
        func changeID(at seq: Int64) throws -> String {
            try #require(try SQLiteDatabase(path: path, mode: .readOnly)
                .text(sql: "SELECT change_id FROM changes WHERE seq = ?", arguments: [seq]))
        }

        /// Verifies the store as reopened.
        func verify() throws -> VerificationReport {
            try AnnotationStore.open(path: path, access: .readOnly).verify()
        }
    }

    /// The chain breaks at exactly `seq`, the only problem verify finds besides those `alsoAllowed` start with.
    func expectBreak(_ fixture: Tampered, at seq: Int64, changeID: String, alsoAllowed: [String] = [],
                     sourceLocation: SourceLocation = #_sourceLocation) throws {
        let report = try fixture.verify()
        #expect(report.chainBreak == ChainBreak(sequence: seq, changeID: changeID), sourceLocation: sourceLocation)
        let chainProblems = report.problems.filter { $0.hasPrefix("changes: the hash chain breaks") }
        #expect(chainProblems == [
            "changes: the hash chain breaks at seq \(seq) (change \(changeID)): its digest does not follow from the "
                + "changes before it; the log was rewritten there or before",
        ], sourceLocation: sourceLocation)
        let others = report.problems.filter { problem in
            !problem.hasPrefix("changes: the hash chain breaks") && !alsoAllowed.contains { problem.hasPrefix($0) }
        }
        #expect(others == [], sourceLocation: sourceLocation)
    }

    @Test func aRewrittenSupersededNoteBreaksTheChainAtItsRow() throws {
        let fixture = try Tampered()
        // The overwritten "a doua": the current tables do not show it, so only the chain can tell.
        try fixture.rewrite("UPDATE changes SET fields = json_set(fields, '$.note', 'I never wrote this') WHERE seq = 2")
        try expectBreak(fixture, at: 2, changeID: try fixture.changeID(at: 2))
    }

    @Test func aDeletedSupersededEditBreaksTheChainAtTheNextRow() throws {
        let fixture = try Tampered()
        let next = try fixture.changeID(at: 3)
        try fixture.rewrite("DELETE FROM changes WHERE seq = 2")
        try expectBreak(fixture, at: 3, changeID: next)
    }

    @Test func anInsertedChangeBreaksTheChainAtItsRow() throws {
        let fixture = try Tampered()
        // A forged edit of `a`, appended after the others with the latest real digest as its own.
        try fixture.rewrite(
            """
            INSERT INTO changes (change_id, hlc, device, entity, entity_id, op, fields, digest)
            SELECT 'forged', hlc, device, entity, entity_id, 'edit', '{"color":"red"}', digest
            FROM changes WHERE seq = 9
            """)
        try expectBreak(fixture, at: 10, changeID: "forged", alsoAllowed: ["annotations: row"])
    }

    @Test func twoSwappedChangesBreakTheChainAtTheFirst() throws {
        let fixture = try Tampered()
        let third = try fixture.changeID(at: 3)
        // Each row keeps its content and digest; only their order changes.
        try fixture.rewrite("UPDATE changes SET seq = 100 WHERE seq = 2")
        try fixture.rewrite("UPDATE changes SET seq = 2 WHERE seq = 3")
        try fixture.rewrite("UPDATE changes SET seq = 3 WHERE seq = 100")
        #expect(try fixture.changeID(at: 2) == third)
        try expectBreak(fixture, at: 2, changeID: third)
    }

    @Test func aMovedClockBreaksTheChainAtItsRow() throws {
        let fixture = try Tampered()
        // The second note moved a millisecond earlier: still before the third, so the tables replay the same.
        try fixture.rewrite(
            """
            UPDATE changes SET hlc = (hlc / 100000 - 1) * 100000 WHERE seq = 2
            """)
        try expectBreak(fixture, at: 2, changeID: try fixture.changeID(at: 2))
    }

    @Test func theLatestChangeRewrittenWithItsRowBreaksTheChain() throws {
        let fixture = try Tampered()
        let c = fixture.ids[2]
        try fixture.rewrite("UPDATE changes SET fields = json_object('note', 'altul') WHERE seq = 9")
        try fixture.rewrite("UPDATE annotations SET note = 'altul' WHERE id = ?", arguments: [c])
        try expectBreak(fixture, at: 9, changeID: try fixture.changeID(at: 9))
    }

    @Test func anAnnotationErasedWithAllItsChangesBreaksTheChain() throws {
        let fixture = try Tampered()
        let b = fixture.ids[1]
        let next = try fixture.changeID(at: 6)
        try fixture.rewrite("DELETE FROM changes WHERE entity_id = ?", arguments: [b])
        try fixture.rewrite("DELETE FROM annotations WHERE id = ?", arguments: [b])
        try expectBreak(fixture, at: 6, changeID: next)
    }

    @Test func aDigestReplacedOrRecomputedAloneIsCaught() throws {
        let fixture = try Tampered()
        // The schema refuses a row without a digest (NOT NULL since schema 5); one of zeros is as good as none.
        try fixture.rewrite("UPDATE changes SET digest = printf('%064d', 0) WHERE seq = 4")
        try expectBreak(fixture, at: 4, changeID: try fixture.changeID(at: 4))
    }

    /// A file export takes the stored head and checks it against the chain recomputed as the changes are written;
    /// a store whose stored digests do not hold still exports an archive whose changes rebuild its head (the archive
    /// is written a second time, with the recomputed chain), and whose import verifies.
    @Test(arguments: ["UPDATE changes SET digest = printf('%064d', 0) WHERE seq = 4",
                      "UPDATE changes SET digest = printf('%064d', 0) WHERE seq = 9",
                      "UPDATE changes SET change_id = 'c0ffee00-0000-4000-8000-000000000000' WHERE seq = 2"])
    func anExportOfAStoreWhoseChainBreaksNamesTheRecomputedHead(sql: String) throws {
        let fixture = try Tampered()
        let intact = try AnnotationStore.open(path: fixture.path, access: .readOnly)
        let intactFile = fixture.directory.path("intact.jsonl.gz")
        try intact.exportArchive(toFile: intactFile)
        #expect(try ArchiveReader(path: intactFile).read().header.head == (try intact.logHead()))
        try intact.close()

        try fixture.rewrite(sql)
        let store = try AnnotationStore.open(path: fixture.path, access: .readOnly)
        let file = fixture.directory.path("tampered.jsonl.gz")
        try store.exportArchive(toFile: file)
        let head = try #require(try ArchiveReader(path: file).read().header.head)
        let empty = try AnnotationStore.open(path: fixture.directory.path("empty.db"), access: .create)
        _ = try empty.importArchive(path: file)
        #expect(try empty.logHead() == head)
        #expect(try empty.verify(against: file).problems == [])
    }

    @Test func theDigestIsTheDocumentedSHA256OfThePreviousDigestAndTheLengthPrefixedColumns() throws {
        let fixture = try Tampered()
        let db = try SQLiteDatabase(path: fixture.path, mode: .readOnly)
        let rows = try db.fetchAll(sql: "SELECT \(Change.columns), digest FROM changes ORDER BY seq") { row in
            try (0...Change.columnCount).map { try row.string($0) }
        }
        var previous = [UInt8](repeating: 0, count: 32)
        for row in rows {
            var input = previous
            for column in row.prefix(Change.columnCount) {
                let bytes = Array(column.utf8)
                let count = UInt32(bytes.count)
                input += [UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
                input += bytes
            }
            #expect(try SHA256Digest.hex(of: input) == row[Change.columnCount])
            previous = try SHA256Digest.digest(of: input)
        }
        let report = try fixture.verify()
        #expect(report.head == LogHead(sequence: 9, digest: rows[8][Change.columnCount]))
        #expect(report.chainBreak == nil)
    }

    /// Seeded: a random row of the log is edited in one random column (or deleted); verify names exactly the row
    /// where the chain first breaks.
    @Test func randomRewritesAreEachCaughtAtTheirRow() throws {
        for seed in TestSeed.seeds(count: 3) {
            var random = SeededGenerator(seed: seed)
            let fixture = try Tampered()
            let original = try Data(contentsOf: URL(fileURLWithPath: fixture.path))
            let columns = ["change_id", "hlc", "device", "entity_id", "fields", "delete"]
            for round in 0..<12 {
                for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: fixture.path + suffix) }
                try original.write(to: URL(fileURLWithPath: fixture.path))
                let seq = Int64.random(in: 1...9, using: &random)
                let column = columns[Int.random(in: 0..<columns.count, using: &random)]
                // Deleting the newest change leaves a shorter chain that holds: only a head kept elsewhere (an
                // archive's, `verify --against`) shows it.
                let expectedSeq = column == "delete" && seq == 9 ? nil : column == "delete" ? seq + 1 : seq
                if column == "delete" {
                    try fixture.rewrite("DELETE FROM changes WHERE seq = ?", arguments: [seq])
                } else if column == "hlc" {
                    try fixture.rewrite("UPDATE changes SET hlc = 100000 + ? WHERE seq = ?", arguments: [seq, seq])
                } else if column == "device" {
                    // The log names a device by its number: the row is given to another device.
                    try fixture.rewrite("INSERT OR IGNORE INTO devices (id) VALUES ('intruder')")
                    try fixture.rewrite(
                        "UPDATE changes SET device = (SELECT number FROM devices WHERE id = 'intruder') WHERE seq = ?",
                        arguments: [seq])
                } else {
                    try fixture.rewrite("UPDATE changes SET \(column) = \(column) || ' ' WHERE seq = ?",
                                        arguments: [seq])
                }
                let report = try fixture.verify()
                #expect(report.chainBreak?.sequence == expectedSeq,
                        "seed \(seed) (replay with MARGINALIA_TEST_SEED=\(seed)), round \(round): \(column) of seq \(seq)")
            }
        }
    }
}
