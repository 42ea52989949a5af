import Foundation
import Testing
@testable import Marginalia
import MarginaliaTestSupport

/// An archive import into a store that has changes merges in short steps, each a transaction of its own; one
/// stopped midway is finished by the next open of the store, from the staged copy kept beside it, so that once the
/// store is open again the import is there whole or not at all.
@Suite struct SteppedImportTests {
    let source = makeSource([("luceafarul", [("luceafarul.1", "A fost odată ca-n poveşti,")])])

    /// The files beside the store that hold a staged copy kept for its import.
    static func keptCopies(of store: String) throws -> [String] {
        let directory = FileSync.parentDirectory(of: store)
        let name = store.split(separator: "/").last.map(String.init) ?? store
        return try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasPrefix(name + "-import-") }
    }

    /// Imports `archive` into `store`, closing the store at the first step's progress report: the import is then
    /// stopped with some of its steps applied and the rest not.
    static func importStoppedAfterTheFirstStep(_ store: AnnotationStore, _ archive: String) throws {
        store.progressHandler = { report in
            if report.task == "importing changes" { try? store.close() }
            return .proceed
        }
        #expect(throws: MarginaliaError.closed) { try store.importArchive(path: archive) }
    }

    /// What the store holds, without the receipts (an import's receipt names the file it read).
    static func dump(_ path: String) throws -> String {
        try canonicalDump(path, except: ["receipts"])
    }

    @Test func anImportStoppedMidwayIsFinishedWhenTheStoreIsNextOpenedForWriting() throws {
        let directory = try TemporaryDirectory()
        let archive = try AsyncAPITests.bookmarkArchive(directory, count: 6000, source: source)
        let reference = try makeStore(directory, source: source, name: "reference.db")
        try reference.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.1"), note: "mine")
        let stopped = try makeStore(directory, source: source, name: "stopped.db")
        try stopped.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.1"), note: "mine")
        try reference.importArchive(path: archive)

        try Self.importStoppedAfterTheFirstStep(stopped, archive)
        let partial = try AnnotationStore.open(path: stopped.path, access: .readOnly, configuration: .init())
        // Opened again, it is finished before the open returns (a read may make this one write).
        #expect(try partial.changeCount() == 6001)
        #expect(try Self.keptCopies(of: stopped.path) == [])
        #expect(try partial.verify().isHealthy)
        let receipt = try #require(try partial.receipts().last)
        #expect(receipt.changesRead == 6000 && receipt.newChanges == 6000 && receipt.file == archive)
        #expect(try partial.annotations().count == reference.annotations().count)
    }

    @Test func whatAStoppedImportAppliedIsTheRestOfItsSteps() throws {
        let directory = try TemporaryDirectory()
        let archive = try AsyncAPITests.bookmarkArchive(directory, count: 6000, source: source)
        let store = try makeStore(directory, source: source, name: "phone.db")
        try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.1"), note: "mine")
        try Self.importStoppedAfterTheFirstStep(store, archive)
        // Read as SQLite sees it, before any open of the store: one step in, the rest recorded as pending.
        let db = try SQLiteDatabase(path: store.path, mode: .readOnly)
        let merged = try db.int(sql: "SELECT count(*) FROM changes") ?? 0
        let pending = try db.text(
            sql: "SELECT value FROM adapter_state WHERE owner = 'archive' AND name LIKE 'pending_import:%'")
        #expect(merged > 1 && merged < 6001, "not stopped midway: \(merged) changes")
        #expect(pending != nil)
        #expect(try Self.keptCopies(of: store.path).count == 1)

        let reopened = try AnnotationStore.open(path: store.path, access: .readWrite)
        #expect(try reopened.changeCount() == 6001)
        #expect(try reopened.annotations().count == 6001)
        // Importing the file again finds every change there.
        let again = try reopened.importArchive(path: archive)
        #expect(again.duplicates == 6000 && again.newChanges == 0)
    }

    @Test func aKeptCopyThatNoStepRecordedIsRemovedAtTheNextOpen() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source, name: "phone.db")
        try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.1"), note: "mine")
        try store.close()
        let before = try Self.dump(store.path)
        let orphan = PendingImport.newStagingPath(beside: store.path)
        #expect(FileManager.default.createFile(atPath: orphan, contents: Data("staged".utf8)))
        _ = try AnnotationStore.open(path: store.path, access: .readWrite)
        #expect(!FileManager.default.fileExists(atPath: orphan))
        #expect(try Self.dump(store.path) == before)
    }

    @Test func aRecordWhoseCopyIsGoneIsDroppedAndTheStoreOpens() throws {
        let directory = try TemporaryDirectory()
        let archive = try AsyncAPITests.bookmarkArchive(directory, count: 6000, source: source)
        let store = try makeStore(directory, source: source, name: "phone.db")
        try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.1"), note: "mine")
        try Self.importStoppedAfterTheFirstStep(store, archive)
        for name in try Self.keptCopies(of: store.path) {
            try FileManager.default.removeItem(atPath: FileSync.parentDirectory(of: store.path) + "/" + name)
        }
        let reopened = try AnnotationStore.open(path: store.path, access: .readWrite)
        #expect(try reopened.verify().isHealthy)
        // The import can be run again, and ends whole.
        try reopened.importArchive(path: archive)
        #expect(try reopened.changeCount() == 6001)
        let db = try SQLiteDatabase(path: store.path, mode: .readOnly)
        #expect(try db.int(sql: "SELECT count(*) FROM adapter_state WHERE owner = 'archive'") == 0)
    }

    @Test func aChangeThatDiffersFromTheStoresIsRefusedBeforeAnythingIsMerged() throws {
        let directory = try TemporaryDirectory()
        let archive = try AsyncAPITests.bookmarkArchive(directory, count: 300, source: source)
        let laptop = try AnnotationStore.open(path: directory.path("laptop.db"), access: .readWrite)
        let changes = try laptop.changes(after: nil)
        // The store holds the file's last change with another clock under the same id.
        let last = try #require(changes.last)
        var altered = last
        altered.hlc = HLC(milliseconds: last.hlc.milliseconds + 1, counter: last.hlc.counter)
        let store = try makeStore(directory, source: source, name: "phone.db")
        try store.merge([altered])
        let before = try Self.dump(store.path)
        #expect {
            try store.importArchive(path: archive)
        } throws: { error in
            (error as? MarginaliaError)?.description.contains("line \(changes.count + 1)") == true
                && (error as? MarginaliaError)?.description.contains(last.changeID) == true
        }
        #expect(try Self.dump(store.path) == before)
        #expect(try Self.keptCopies(of: store.path) == [])
    }
}
