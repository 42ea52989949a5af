import Foundation
import Testing
@testable import Marginalia

#if canImport(Glibc)
import Glibc
#endif

/// Restore is exact or refused: the new state goes into the live store through SQLite's online backup API, an
/// open connection reads it afterwards, and any failure leaves the old store under the live name.
@Suite struct RestoreTests {
    typealias Fixtures = ArchiveFixtures

    /// A store with the fixture's 12 changes and some long notes (well over 64 pages), its backup, and one more
    /// acknowledged write made after the backup.
    struct Scene {
        let directory: TemporaryDirectory
        let clock = ManualClock(ArchiveFixtures.epoch)

        init() throws { directory = try TemporaryDirectory() }

        var live: String { directory.path("user.db") }
        var backup: String { directory.path("backup.jsonl.gz") }

        /// The store `name` in the directory (`user.db`, the live store, by default) with the fixture content.
        func makeStore(_ name: String = "user.db") throws -> AnnotationStore {
            try ArchiveFixtures.store(directory, name, clock: clock)
        }

        /// Populates `store`, backs it up, then adds one write the backup does not hold; returns its id.
        func populateAndBackUp(_ store: AnnotationStore) throws -> String {
            try Fixtures.populate(store, clock: clock)
            for index in 0..<3 {
                clock.advance(1000)
                let text = (0..<20_000).map { _ in "abcdefghij".randomElement().map(String.init) ?? "" }.joined()
                try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.\(index + 1)"),
                                           note: String(repeating: text, count: 3))
            }
            _ = try store.backup(to: backup)
            clock.advance(1000)
            return try store.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.4")).id
        }

        func leftovers() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: directory.path("")).filter { $0.contains(".tmp") }
        }
    }

    @Test func theDestinationWriteLockIsHeldFromTheFirstStepToTheEnd() throws {
        let directory = try TemporaryDirectory()
        let source = try SQLiteDatabase(path: directory.path("source.db"))
        try source.executeScript(sql: "CREATE TABLE t(x); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
            + "FROM n WHERE i < 200) INSERT INTO t SELECT randomblob(3000) FROM n")
        let destination = try SQLiteDatabase(path: directory.path("live.db"))
        try destination.executeScript(sql: "PRAGMA journal_mode = WAL; CREATE TABLE old(y); INSERT INTO old VALUES (1)")
        let other = try SQLiteDatabase(path: directory.path("live.db"), busyTimeoutMilliseconds: 0)
        func otherCanWrite() -> Bool {
            do {
                try other.executeScript(sql: "BEGIN IMMEDIATE")
                try other.executeScript(sql: "ROLLBACK")
                return true
            } catch {
                return false
            }
        }
        #expect(otherCanWrite())
        var checks: [Bool] = []
        try destination.replaceContents(with: source, pagesPerStep: 16, onceLocked: {
            checks.append(otherCanWrite())
            // Readers go on with the old content while the copy runs.
            let old = try other.int(sql: "SELECT y FROM old")
            #expect(old == 1)
        }, afterStep: { _ in checks.append(otherCanWrite()) })
        #expect(checks.count > 10 && checks.allSatisfy { !$0 }, "\(checks)")
        #expect(otherCanWrite())
        #expect(try other.int(sql: "SELECT count(*) FROM t") == 200)
        #expect(try other.text(sql: "PRAGMA journal_mode") == "wal")
    }

    @Test func anOpenConnectionReadsTheRestoredStateAndTheBakHoldsEveryAcknowledgedWrite() throws {
        let scene = try Scene()
        let app = try scene.makeStore()
        let late = try scene.populateAndBackUp(app)
        let before = try canonicalDump(scene.live)
        let report = try AnnotationStore.restore(archive: scene.backup, to: scene.live)
        let previous = try #require(report.previousStore)
        #expect(try canonicalDump(previous) == before)
        #expect(try AnnotationStore.open(path: previous, access: .readOnly).annotation(id: late).id == late)
        // The connection that was open all along sees the restored store, whole.
        #expect(throws: MarginaliaError(StoreError.annotationNotFound(id: late))) { try app.annotation(id: late) }
        #expect(try app.changeCount() == 15)
        #expect(try app.verify().problems == [])
        let fresh = try AnnotationStore.open(path: scene.live, access: .readOnly)
        #expect(fresh.deviceID == report.deviceID)
        #expect(try fresh.verify().problems == [])
        // It can write on, and the write lands in the live file.
        scene.clock.advance(1000)
        let after = try app.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.2")).id
        #expect(try AnnotationStore.open(path: scene.live, access: .readOnly).annotation(id: after).id == after)
        #expect(try scene.leftovers() == [])
    }

    @Test func aFailureInTheMiddleOfTheCopyLeavesTheOldStoreUnderTheLiveName() throws {
        let scene = try Scene()
        let app = try scene.makeStore()
        let late = try scene.populateAndBackUp(app)
        let before = try canonicalDump(scene.live)
        let real = try #require(realpath(scene.live, nil))
        let target = String(cString: real)
        free(real)
        var steps = 0
        ArchiveRestore.copyStepHook = { path, step in
            guard path == target else { return }
            steps = step
            if step == 2 { throw SQLiteError(extendedCode: 13, message: "injected: database or disk is full") }
        }
        defer { ArchiveRestore.copyStepHook = nil }
        do {
            _ = try AnnotationStore.restore(archive: scene.backup, to: scene.live)
            Issue.record("the restore reported success")
        } catch let wrapped as MarginaliaError {
            let error = try #require(wrapped.underlyingError as? RestoreError)
            #expect(error.storeUnchanged)
            #expect(error.category == .diskFull && MarginaliaError(error).category == .diskFull)
            let previous = try #require(error.previousStore)
            #expect("\(error)".contains(previous) && "\(error)".contains("injected"))
            #expect(try canonicalDump(previous) == before)
        }
        #expect(steps == 2)
        #expect(try canonicalDump(scene.live) == before)
        #expect(try app.annotation(id: late).id == late)
        #expect(try app.verify().problems == [])
        #expect(try scene.leftovers() == [])
    }

    @Test func aSymlinkedPrivateStoreStaysASymlinkAndPrivate() throws {
        let scene = try Scene()
        try FileManager.default.createDirectory(atPath: scene.directory.path("real"), withIntermediateDirectories: true)
        let real = scene.directory.path("real/user.db")
        _ = try scene.populateAndBackUp(try scene.makeStore("real/user.db"))
        #expect(chmod(real, 0o600) == 0)
        let link = scene.directory.path("link.db")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        let report = try AnnotationStore.restore(archive: scene.backup, to: link)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == real)
        #expect(try AnnotationStore.open(path: real, access: .readOnly).deviceID == report.deviceID)
        let previous = try #require(report.previousStore)
        #expect(previous.hasPrefix(real + "."))
        for path in [real, previous] {
            var info = stat()
            #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600, "\(path)")
        }
    }

    @Test func aMissingStoreIsCreatedPrivateAndADamagedOneIsKeptUnlessInUse() throws {
        let scene = try Scene()
        _ = try scene.populateAndBackUp(try scene.makeStore("source.db"))
        let report = try AnnotationStore.restore(archive: scene.backup, to: scene.live)
        #expect(report.previousStore == nil)
        var info = stat()
        #expect(stat(scene.live, &info) == 0 && info.st_mode & 0o777 == 0o600)

        let damaged = scene.directory.path("damaged.db")
        let garbage = Data("SQLite format 3\0".utf8) + Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 * 7) })
        try garbage.write(to: URL(fileURLWithPath: damaged))
        // Another holder of a lock on the file (as an SQLite connection in another process would hold one).
        let descriptor = open(damaged, O_RDWR)
        var lock = flock()
        lock.l_type = Int16(F_RDLCK)
        lock.l_whence = Int16(SEEK_SET)
        #expect(fcntl(descriptor, 37 /* F_OFD_SETLK */, &lock) == 0)
        #expect(thrownError(StoreError.self) { _ = try AnnotationStore.restore(archive: scene.backup, to: damaged) }
            != nil)
        #expect(try Data(contentsOf: URL(fileURLWithPath: damaged)) == garbage)
        close(descriptor)
        let kept = try AnnotationStore.restore(archive: scene.backup, to: damaged)
        #expect(try Data(contentsOf: URL(fileURLWithPath: try #require(kept.previousStore))) == garbage)
        #expect(try AnnotationStore.open(path: damaged, access: .readOnly).verify().problems == [])
        #expect(try scene.leftovers() == [])
    }
}
