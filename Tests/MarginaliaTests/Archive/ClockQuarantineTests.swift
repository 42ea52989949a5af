import Foundation
import Testing
@testable import Marginalia

/// Clocks far off: local writes are made but reported and noted; future-dated changes of an archive are held in
/// quarantine while the rest is merged, and merged once plausible, with the same winners on every replica.
@Suite struct ClockQuarantineTests {
    typealias Fixtures = ArchiveFixtures
    static let day: Int64 = 86_400_000

    /// Time passing is not a wrong clock: a note written 2 or 60 days after the last one raises nothing.
    @Test(arguments: [2 * day, 60 * day])
    func aWriteAfterABreakOfAnyLengthRaisesNoWarning(offset: Int64) throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock(Fixtures.epoch)
        let store = try Fixtures.store(directory, clock: clock)
        try store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.1"))
        clock.advance(offset)
        let later = try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.3"), note: "n")
        #expect(store.clockWarnings.isEmpty)
        #expect(try store.clockNotes().isEmpty)
        #expect(try store.quarantinedChanges().isEmpty)
        #expect(try store.history(id: later.id).first?.wall == Fixtures.epoch + offset)
    }

    /// A clock set back behind what this machine recorded earlier is noted, once for the episode, naming the
    /// evidence; a clock that goes back again later, past a newer change, is a new episode.
    @Test func aClockSetBackIsNotedOncePerEpisode() throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock(Fixtures.epoch)
        let store = try Fixtures.store(directory, clock: clock)
        try store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.1"))
        clock.advance(-2 * Self.day)
        let second = try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.3"), note: "n")
        #expect(try store.annotation(id: second.id).note == "n")
        let warning = try #require(store.clockWarnings.first)
        #expect(store.clockWarnings.count == 1)
        #expect(warning.direction == .behind)
        #expect(warning.newestChange.milliseconds == Fixtures.epoch)
        #expect(warning.changeID == (try store.history(id: second.id).first?.changeID))
        #expect(warning.description.contains("is 2 days behind the time of the newest change made on it"))
        #expect(try store.clockNotes() == [warning])
        // The same episode: noted once.
        clock.advance(1000)
        try store.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.2"))
        try store.batch {
            for _ in 0..<3 { try store.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.2")) }
        }
        #expect(try store.clockNotes().count == 1)
        // Right again, then set back past the newer change: a new episode.
        clock.set(Fixtures.epoch + 10 * Self.day)
        try store.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.2"))
        clock.set(Fixtures.epoch + 5 * Self.day)
        try store.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.2"))
        let notes = try store.clockNotes()
        #expect(notes.count == 2 && notes.last?.newestChange.milliseconds == Fixtures.epoch + 10 * Self.day)
        // Within a day of the newest change: nothing to report.
        let quiet = try Fixtures.store(directory, "quiet.db", clock: ManualClock(Fixtures.epoch))
        try quiet.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.1"))
        try quiet.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.2"))
        #expect(quiet.clockWarnings.isEmpty)
        #expect(try quiet.clockNotes().isEmpty)
    }

    @Test func durationsReadAsWords() {
        #expect(Timestamp.duration(Self.day) == "a day")
        #expect(Timestamp.duration(2 * Self.day + 5) == "2 days")
        #expect(Timestamp.duration(Self.day - 5) == "23 hours")
        #expect(Timestamp.duration(3_600_000) == "an hour")
        #expect(Timestamp.duration(90 * 60_000) == "90 minutes")
    }

    @Test func aBatchNotesItsClockOnce() throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock(Fixtures.epoch)
        let store = try Fixtures.store(directory, clock: clock)
        try store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.1"))
        clock.advance(-3 * Self.day)
        try store.batch {
            for passage in ["luceafarul.2", "luceafarul.3", "luceafarul.4"] {
                try store.createAnnotation(.highlight, at: AnchorRequest(passage: passage))
            }
        }
        #expect(store.clockWarnings.count == 1)
        #expect(try store.clockNotes().count == 1)
    }

    /// Replica a gets a file from b whose last changes were made with b's clock three days ahead of a's.
    private static func diverged(_ directory: TemporaryDirectory)
        throws -> (a: Replica, b: Replica, file: String, future: Set<String>)
    {
        let a = try Replica("a", in: directory, clock: ManualClock(Fixtures.epoch))
        let b = try Replica("b", in: directory, clock: ManualClock(Fixtures.epoch))
        let ids = try Fixtures.populate(b.store, clock: b.clock)
        try a.importArchive(try b.export())
        a.clock.set(b.clock.now())
        try b.store.setPosition(document: "luceafarul", at: TextPosition(passage: "luceafarul.3", offset: 1))
        let before = Set(try b.store.log().map(\.changeID))
        b.clock.advance(3 * day)
        try b.store.editAnnotation(id: ids[0], note: "from the future")
        try b.store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.4"), note: "ahead")
        // A change made while a's clock is right, to the same note: it loses to the future edit everywhere.
        try a.store.editAnnotation(id: ids[0], note: "on a")
        let future = Set(try b.store.log().map(\.changeID)).subtracting(before)
        return (a, b, try b.export(), future)
    }

    @Test func futureChangesAreQuarantinedListedAndMergedWhenTheClockCatchesUp() throws {
        let directory = try TemporaryDirectory()
        let (a, b, file, future) = try Self.diverged(directory)
        let report = try a.importArchive(file)
        #expect(report.quarantined == 2 && report.newChanges == 1)
        #expect(try a.store.position(document: "luceafarul")?.position.offset == 1)
        let held = try a.store.quarantinedChanges()
        #expect(Set(held.map(\.change.changeID)) == future && held.allSatisfy { $0.source == file })
        #expect(try a.store.log().allSatisfy { !future.contains($0.changeID) })
        // Importing again holds them again, once.
        #expect(try a.importArchive(file).quarantined == 2)
        #expect(try a.store.quarantinedChanges().count == 2)
        // Opened two days later (still a day short), they wait; three days later they are merged on opening.
        a.clock.advance(2 * Self.day - 1000)
        try a.reopen()
        #expect(try a.store.quarantinedChanges().count == 2)
        a.clock.advance(2000)
        try a.reopen()
        #expect(try a.store.quarantinedChanges().isEmpty)
        #expect(Set(try a.store.log().map(\.changeID)).isSuperset(of: future))
        try b.importArchive(try a.export())
        #expect(try a.state() == b.state())
        #expect(try a.store.verify().problems == [])
    }

    @Test func acceptFutureMergesThemAtOnceAndReplicasAgree() throws {
        let directory = try TemporaryDirectory()
        let (a, b, file, future) = try Self.diverged(directory)
        let c = try Replica("c", in: directory, clock: ManualClock(Fixtures.epoch))
        try c.importArchive(file)
        #expect(try c.store.quarantinedChanges().count == 2)
        // First held, then accepted: the quarantine empties into the log.
        let accepted = try c.store.importArchive(path: file, acceptFuture: true)
        #expect(accepted.newChanges == 2 && accepted.quarantined == 0)
        #expect(try c.store.quarantinedChanges().isEmpty)
        #expect(try a.store.importArchive(path: file, acceptFuture: true).newChanges == future.count + 1)
        try b.importArchive(try a.export())
        try c.importArchive(try a.export())
        #expect(try a.state() == b.state())
        #expect(try a.state() == c.state())
        // The future edit wins over a's later-made, earlier-dated one on every replica.
        let edited = try a.store.annotations(matching: AnnotationFilter(includeDeleted: true))
        #expect(edited.contains { $0.note == "from the future" } && !edited.contains { $0.note == "on a" })
    }

    @Test func aRestoreKeepsTheQuarantineOfTheStoreItReplaces() throws {
        let directory = try TemporaryDirectory()
        let (a, _, file, future) = try Self.diverged(directory)
        try a.importArchive(file)
        let backup = directory.path("backup.jsonl.gz")
        _ = try a.store.backup(to: backup)
        _ = try AnnotationStore.restore(archive: backup, to: a.path)
        try a.reopen()
        #expect(Set(try a.store.quarantinedChanges().map(\.change.changeID)) == future)
    }

    @Test func readingTheArchiveHoldsNoWriteLock() throws {
        let directory = try TemporaryDirectory()
        let source = try Replica("source", in: directory, clock: ManualClock(Fixtures.epoch))
        try source.store.batch {
            for index in 0..<1200 {
                try source.store.setPosition(document: "luceafarul",
                                             at: TextPosition(passage: "luceafarul.1", offset: index % 20))
            }
        }
        let file = try source.export()
        let target = try Replica("target", in: directory, clock: ManualClock(Fixtures.epoch))
        // A second connection that does not wait: BEGIN IMMEDIATE fails at once if the import holds the lock.
        // The handler runs on the thread doing the import, while this test waits for it: the box is never shared.
        let other = UncheckedBox(try SQLiteDatabase(path: target.path, mode: .readWrite, busyTimeoutMilliseconds: 0))
        let tried = UncheckedBox(Counter())
        target.store.progressHandler = { progress in
            guard progress.task == "reading archive" else { return .proceed }
            tried.value.count += 1
            #expect(throws: Never.self) {
                try other.value.executeScript(
                    sql: "BEGIN IMMEDIATE; INSERT INTO meta VALUES ('probe', 'x'); ROLLBACK")
            }
            return .proceed
        }
        #expect(try target.importArchive(file).newChanges == 1200)
        #expect(tried.value.count >= 1)
    }

    @Test func reanchoringChecksWithoutTheWriteLockAndChecksAgainAfterAnotherWrite() throws {
        let directory = try TemporaryDirectory()
        let replica = try Replica("store", in: directory, clock: ManualClock(Fixtures.epoch))
        let ids = try replica.store.batch {
            try (0..<501).map { _ in
                try replica.store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.1")).id
            }
        }
        let other = UncheckedBox(try SQLiteDatabase(path: replica.path, mode: .readWrite, busyTimeoutMilliseconds: 0))
        // Another process edits a note while the anchors are being checked: it must not wait.
        let writer = try Fixtures.store(directory, "store.db", clock: ManualClock(Fixtures.epoch + 60_000))
        let probed = UncheckedBox(Counter())
        replica.store.progressHandler = { progress in
            guard progress.task == "checking anchors", probed.value.count == 0 else { return .proceed }
            probed.value.count = 1
            #expect(throws: Never.self) {
                try other.value.executeScript(sql: "BEGIN IMMEDIATE; ROLLBACK")
                try writer.editAnnotation(id: ids[7], note: "written meanwhile")
            }
            return .proceed
        }
        let report = try replica.store.reconcileAnchors(reanchor: true)
        #expect(probed.value.count == 1 && report.intact == 501)
        #expect(try replica.store.annotation(id: ids[7]).note == "written meanwhile")
        #expect(try replica.store.verify().problems == [])
    }

    @Test func aFailedMigrationLeavesTheSchemaOneStoreIntact() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("user.db")
        try FileManager.default.copyItem(atPath: SchemaFixtureTests.directory.appendingPathComponent("user-schema1.db")
            .path, toPath: path)
        let before = try canonicalDump(path)
        let db = try SQLiteDatabase(path: path, mode: .readWrite)
        let version2 = try #require(UserSchema.migrations.first { $0.version == 2 })
        // Migration 2, then a statement that fails: the whole step must roll back.
        let failing = UserSchema.Migration(version: 2, steps: version2.steps + [.sql("CREATE TABLE meta (key TEXT);")])
        #expect(throws: SQLiteError.self) {
            try UserDatabase.migrate(db, migrations: [UserSchema.migrations[0], failing], newDeviceID: { "x" })
        }
        #expect(try db.int(sql: "PRAGMA user_version") == 1)
        #expect(try db.int(sql: "SELECT count(*) FROM sqlite_schema WHERE name IN ('quarantine', 'clock_notes')") == 0)
        #expect(try canonicalDump(path) == before)
        // And the real migration then succeeds.
        let store = try AnnotationStore.open(path: path, access: .readWrite)
        #expect(try store.db.int(sql: "PRAGMA user_version") == Int64(UserSchema.currentVersion))
        #expect(try store.verify().problems == [])
    }
}

/// Exports for other tools date an annotation by when it was made, not by the clock that orders its changes.
@Suite struct WallTimeExportTests {
    typealias Fixtures = ArchiveFixtures
    static let day: Int64 = 86_400_000

    @Test func anExportDatesANoteByWhenItWasMadeAfterTheClockWasPushedAhead() throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock(Fixtures.epoch)
        let store = try Fixtures.store(directory, clock: clock)
        // Another machine's change, its clock five days ahead (made then, taken at once): this store's clock follows.
        var fields = ChangeFields()
        fields.position = TextPosition(passage: "luceafarul.1", offset: 0)
        let future = Change(changeID: Identifiers.make(),
                            hlc: HLC(milliseconds: Fixtures.epoch + 5 * Self.day, counter: 0), device: "other-device",
                            entity: .position, entityID: "luceafarul", operation: .set, fields: fields,
                            wall: Fixtures.epoch + 5 * Self.day)
        try store.engine.write { _ = try $0.merging { try $0.merge([future], acceptFuture: true) } }
        clock.advance(60_000)
        let note = try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.1"), note: "now")
        let made = try #require(try store.history(id: note.id).first)
        #expect(made.wall == Fixtures.epoch + 60_000 && made.hlc.milliseconds >= Fixtures.epoch + 5 * Self.day)
        let path = directory.path("notes.w3c.json")
        try store.exportInterop(.w3c, toFile: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains(#""created":"\#(Timestamp.iso8601(milliseconds: Fixtures.epoch + 60_000))""#), "\(text)")
        let log = try store.log(LogFilter(since: Fixtures.epoch, until: Fixtures.epoch + Self.day))
        #expect(log.map(\.changeID) == [made.changeID])
    }
}
