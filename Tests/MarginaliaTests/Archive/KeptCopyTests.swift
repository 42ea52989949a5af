import Foundation
import Testing
@testable import Marginalia
import MarginaliaTestSupport

/// The copy an import stopped midway keeps beside the store is checked as the archive it came from was: the next
/// open finishes the import from it only when it is the regular file kept, of the size and SHA-256 recorded;
/// otherwise the import is abandoned, nothing of the copy is merged, and what the committed steps merged stays.
@Suite struct KeptCopyTests {
    let source = makeSource([("luceafarul", [("luceafarul.1", "A fost odată ca-n poveşti,")])])

    /// A store with a note of its own and an import of a 6,000-change archive stopped after its first step.
    struct Stopped {
        let directory: TemporaryDirectory
        let archive: String
        let store: String
        /// The kept copy's path.
        let copy: String
        /// How many changes the store holds, as the stopped import left it.
        let changes: Int

        /// The pending record, as the store keeps it.
        func record() throws -> String? {
            try SQLiteDatabase(path: store, mode: .readOnly)
                .text(sql: "SELECT value FROM adapter_state WHERE owner = 'archive' AND name LIKE 'pending_import:%'")
        }
    }

    func stoppedImport() throws -> Stopped {
        let directory = try TemporaryDirectory()
        let archive = try AsyncAPITests.bookmarkArchive(directory, count: 6000, source: source)
        let store = try makeStore(directory, source: source, name: "phone.db")
        try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.1"), note: "mine")
        try SteppedImportTests.importStoppedAfterTheFirstStep(store, archive)
        let copies = try SteppedImportTests.keptCopies(of: store.path)
        try #require(copies.count == 1)
        let changes = Int(try SQLiteDatabase(path: store.path, mode: .readOnly)
            .int(sql: "SELECT count(*) FROM changes") ?? 0)
        try #require(changes > 1 && changes < 6001, "not stopped midway: \(changes) changes")
        return Stopped(directory: directory, archive: archive, store: store.path,
                       copy: directory.path(copies[0]), changes: changes)
    }

    @Test func theRecordCarriesTheKeptCopysSizeAndSHA256() throws {
        let stopped = try stoppedImport()
        let record = try PendingImport(key: "pending_import:" + stopped.copy.split(separator: "/").last!,
                                       text: try #require(try stopped.record()))
        let descriptor = open(stopped.copy, O_RDONLY)
        defer { close(descriptor) }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: stopped.copy)[.size] as? Int)
        #expect(record.keptCopy == (try KeptCopy.fingerprint(of: descriptor, path: stopped.copy)))
        #expect(record.keptCopy?.size == Int64(size))
    }

    @Test func anUntouchedCopyStillFinishesTheImport() throws {
        let stopped = try stoppedImport()
        let reopened = try AnnotationStore.open(path: stopped.store, access: .readWrite)
        #expect(reopened.finishedImports == [stopped.archive])
        #expect(reopened.abandonedImports == [])
        #expect(try reopened.changeCount() == 6001)
        #expect(try reopened.verify().isHealthy)
        #expect(!FileManager.default.fileExists(atPath: stopped.copy))
    }

    @Test func aCopyChangedWithSQLIsNotMergedAndTheImportIsAbandoned() throws {
        let stopped = try stoppedImport()
        let pending = try PendingImport(key: "pending_import:x", text: try #require(try stopped.record()))
        // A change no step merged yet, rewritten in the copy as SQLite sees it: a valid database, another text.
        do {
            let copy = try SQLiteDatabase(path: stopped.copy, mode: .readWrite)
            try copy.execute(sql: """
                UPDATE staged_records SET body = replace(body, 'luceafarul', 'TAMPERED')
                WHERE line = (SELECT max(line) FROM staged_records WHERE kind = 'change')
                """)
            #expect(copy.changedRowCount == 1)
        }

        let reopened = try AnnotationStore.open(path: stopped.store, access: .readWrite)
        #expect(reopened.finishedImports == [])
        #expect(reopened.abandonedImports == [AbandonedImport(
            archive: stopped.archive, copy: stopped.copy, problem: .changed, changesRead: pending.changesRead,
            total: 6000)])
        #expect(reopened.abandonedImports.first?.description == "the import of \(stopped.archive) was abandoned: "
            + "the kept copy \(stopped.copy) was changed since the import began; \(pending.changesRead) of its 6000 "
            + "changes are in the store")
        #expect(try reopened.changeCount() == stopped.changes)
        #expect(try reopened.verify().isHealthy)
        #expect(try stopped.record() == nil)
        #expect(!FileManager.default.fileExists(atPath: stopped.copy))
        let dump = try SteppedImportTests.dump(stopped.store)
        #expect(!dump.contains("TAMPERED"))
        // Imported again, the archive ends whole.
        let again = try reopened.importArchive(path: stopped.archive)
        #expect(again.newChanges == 6000 - (stopped.changes - 1))
        #expect(try reopened.changeCount() == 6001)
    }

    @Test func aRecordOfAnEarlierVersionWithoutTheCopysSHA256IsAbandoned() throws {
        let stopped = try stoppedImport()
        do {
            let db = try SQLiteDatabase(path: stopped.store, mode: .readWrite)
            try db.execute(sql: """
                UPDATE adapter_state SET value = json_remove(value, '$.copy_size', '$.copy_sha256')
                WHERE owner = 'archive' AND name LIKE 'pending_import:%'
                """)
            #expect(db.changedRowCount == 1)
        }
        let reopened = try AnnotationStore.open(path: stopped.store, access: .readWrite)
        #expect(reopened.abandonedImports.map(\.problem) == [.unrecorded])
        #expect(try reopened.changeCount() == stopped.changes)
        #expect(try stopped.record() == nil)
        #expect(!FileManager.default.fileExists(atPath: stopped.copy))
    }

    @Test func aSymbolicLinkInPlaceOfTheCopyIsNotFollowed() throws {
        let stopped = try stoppedImport()
        let moved = stopped.directory.path("elsewhere.db")
        try FileManager.default.moveItem(atPath: stopped.copy, toPath: moved)
        try FileManager.default.createSymbolicLink(atPath: stopped.copy, withDestinationPath: moved)
        let reopened = try AnnotationStore.open(path: stopped.store, access: .readWrite)
        #expect(reopened.abandonedImports.map(\.problem) == [.notARegularFile("a symbolic link")])
        #expect(try reopened.changeCount() == stopped.changes)
        // Neither the link nor the file it names is removed: they are not the copy this store kept.
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: stopped.copy)) == moved)
        #expect(FileManager.default.fileExists(atPath: moved))
    }
}
