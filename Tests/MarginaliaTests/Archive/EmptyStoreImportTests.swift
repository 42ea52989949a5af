import Foundation
import Testing
@testable import Marginalia
import MarginaliaTestSupport

/// An import into an empty store fills the log first and projects it once (`projectWholeLog`); it must end in the
/// same tables and report the same as merging the same changes one by one (`merge`, which always projects as it
/// goes), over more annotations than one page of the projection holds.
@Suite struct EmptyStoreImportTests {
    /// Everything a report says, the listed conflicts included.
    func counts(_ report: MergeReport) -> [String] {
        [
            "read \(report.changesRead)", "new \(report.newChanges)", "duplicates \(report.duplicates)",
            "created \(report.annotationsCreated)", "updates \(report.updates)", "deletions \(report.deletions)",
            "conflicts \(report.conflictsResolved)", "pending \(report.pending)", "quarantined \(report.quarantined)",
        ] + report.conflicts.map {
            "\($0.id) \($0.field) \($0.keptValue ?? "-") \($0.lostValue) \($0.lostChangeID)"
        }
    }

    /// The diverged phone's store (`makeDivergedPhone`), made once per test process and copied into `directory`:
    /// every test reads it, and none needs to make its 2,600 annotations again.
    func divergedPhone(_ directory: TemporaryDirectory) throws -> Replica {
        let made = try BuiltOnce.shared.value(for: "diverged-phone") { shared in
            let scratch = try TemporaryDirectory()
            let phone = try makeDivergedPhone(scratch)
            try phone.store.close()
            let path = "\(shared)/phone.db"
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: phone.path + suffix) {
                try FileManager.default.copyItem(atPath: phone.path + suffix, toPath: path + suffix)
            }
            return path
        }
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: made + suffix) {
            try FileManager.default.copyItem(atPath: made + suffix, toPath: directory.path("phone.db") + suffix)
        }
        return try Replica("phone", in: directory, clock: ManualClock(ArchiveFixtures.epoch + 5000))
    }

    /// A phone and a laptop that wrote 2,600 annotations, then edited, deleted and moved the same ones each on its
    /// own (the laptop first, so that its edits lose), and met again: the phone's store. Each side picks the
    /// annotations it changes by their place in the order they were made, one or two in 16 (ids sort by time, so
    /// their first characters would pick none or all).
    func makeDivergedPhone(_ directory: TemporaryDirectory) throws -> Replica {
        let phone = try Replica("phone", in: directory, clock: ManualClock(ArchiveFixtures.epoch))
        let laptop = try Replica("laptop", in: directory, clock: ManualClock(ArchiveFixtures.epoch))
        let passages = ["luceafarul.1", "luceafarul.2", "luceafarul.3", "scrisoarea-i.1", "scrisoarea-i.2"]
        let ids = try phone.store.batch {
            try (0..<2600).map { index in
                try phone.store.createAnnotation(
                    index % 7 == 0 ? .note : .highlight, at: AnchorRequest(passage: passages[index % passages.count]),
                    note: index % 3 == 0 ? "nota \(index)" : nil, tags: index % 5 == 0 ? ["t\(index % 4)"] : []).id
            }
        }
        try laptop.importArchive(try phone.export())
        laptop.clock.advance(1000)
        try laptop.store.batch {
            for (index, id) in ids.enumerated() where [10, 11].contains(index % 16) {
                try laptop.store.editAnnotation(id: id, note: "de pe laptop", color: "green")
            }
            for (index, id) in ids.enumerated() where index % 16 == 12 { try laptop.store.deleteAnnotation(id: id) }
        }
        try laptop.store.setPosition(document: "luceafarul", at: TextPosition(passage: "luceafarul.2", offset: 1))
        phone.clock.advance(5000)
        try phone.store.batch {
            for (index, id) in ids.enumerated() where [10, 13].contains(index % 16) {
                try phone.store.editAnnotation(id: id, note: "de pe telefon", addTags: ["t9"])
            }
        }
        try phone.store.setPosition(document: "luceafarul", at: TextPosition(passage: "luceafarul.4", offset: 2))
        try phone.importArchive(try laptop.export())
        return phone
    }

    /// Imports `archive` into `replica` and says whether the import filled the log in one statement from the
    /// staged file (`fillLog(from:receipt:)`) rather than merging change by change.
    func importFillingTheLog(_ replica: Replica, _ archive: String,
                             limits: ArchiveLimits = ArchiveLimits()) throws -> (ImportReport, filled: Bool) {
        StatementLog.shared.watch(replica.path)
        let report: ImportReport
        do {
            report = try replica.importArchive(archive, limits: limits)
        } catch {
            _ = StatementLog.shared.stopWatching(replica.path)
            throw error
        }
        let statements = StatementLog.shared.stopWatching(replica.path)
        return (report, statements.contains { $0.contains("INSERT INTO main.changes") && $0.contains("staged_records") })
    }

    /// The store's device ids in the order it numbered them.
    func devices(_ replica: Replica) throws -> [String] {
        try SQLiteDatabase(path: replica.path, mode: .readOnly)
            .fetchAll(sql: "SELECT id FROM devices ORDER BY number") { try $0.string(0) }
    }

    @Test func aWholeArchiveIntoAnEmptyStoreEndsAndReportsAsMergingChangeByChange() throws {
        let directory = try TemporaryDirectory()
        let phone = try divergedPhone(directory)
        let archive = try phone.export()

        let imported = try Replica("imported", in: directory, clock: ManualClock(ArchiveFixtures.epoch + 60_000))
        let (report, filled) = try importFillingTheLog(imported, archive)
        #expect(filled)
        let merged = try Replica("merged", in: directory, clock: ManualClock(ArchiveFixtures.epoch + 60_000))
        let mergeReport = try merged.store.merge(try phone.store.changes(after: nil))

        #expect(report.annotationsCreated == 2600 && report.updates > 500 && report.deletions > 100)
        #expect(report.conflictsResolved > 100 && report.conflicts.count == MergeConflict.listedLimit)
        #expect(counts(report.merge) == counts(mergeReport))
        #expect(try imported.state() == merged.state())
        #expect(try imported.state() == phone.state())
        #expect(try imported.store.verify().problems == [])
        #expect(try devices(imported) == devices(merged))
    }

    /// Devices that first appear in one batch of the merge are numbered in the order of their ids, by the log
    /// filled in one statement as by merging change by change.
    @Test func theDevicesOfOneBatchAreNumberedInTheOrderOfTheirIDs() throws {
        let directory = try TemporaryDirectory()
        let hub = try Replica("hub", in: directory, clock: ManualClock(ArchiveFixtures.epoch))
        for name in ["one", "two", "three", "four"] {
            let writer = try Replica(name, in: directory, clock: ManualClock(ArchiveFixtures.epoch))
            for passage in ["luceafarul.1", "luceafarul.2"] {
                try writer.store.createAnnotation(.highlight, at: AnchorRequest(passage: passage))
            }
            try hub.importArchive(try writer.export())
        }
        let archive = try hub.export()
        let imported = try Replica("imported", in: directory, clock: ManualClock(ArchiveFixtures.epoch + 60_000))
        let (_, filled) = try importFillingTheLog(imported, archive)
        let merged = try Replica("merged", in: directory, clock: ManualClock(ArchiveFixtures.epoch + 60_000))
        try merged.store.merge(try hub.store.changes(after: nil))

        #expect(filled)
        let numbered = try devices(imported)
        #expect(numbered.count == 4 && numbered == numbered.sorted())
        #expect(numbered == (try devices(merged)))
        #expect(try imported.state() == merged.state())
    }

    /// An import stages the file in a temporary database of its own and detaches it when done; inside a batch, where
    /// ATTACH cannot run, it stages in the connection's temporary database instead, and ends the same.
    @Test func theStagingDatabaseIsDetachedAfterAnImportAndNotNeededInsideABatch() throws {
        let directory = try TemporaryDirectory()
        let phone = try divergedPhone(directory)
        let archive = try phone.export()
        let schemas = { (replica: Replica) in
            try replica.store.writer.db.fetchAll(sql: "SELECT name FROM pragma_database_list") { try $0.string(0) }
        }
        let imported = try Replica("imported", in: directory, clock: ManualClock(ArchiveFixtures.epoch + 60_000))
        let report = try imported.importArchive(archive)
        #expect(try !schemas(imported).contains("staging"))
        let batched = try Replica("batched", in: directory, clock: ManualClock(ArchiveFixtures.epoch + 60_000))
        let batchReport = try batched.store.batch {
            #expect(try !schemas(batched).contains("staging"))
            return try batched.importArchive(archive)
        }
        #expect(try !schemas(batched).contains("staging"))
        #expect(counts(batchReport.merge) == counts(report.merge))
        #expect(try batched.state() == imported.state())
    }

    /// Into a store that has some of the file's changes, those are marked known as the file is staged and counted
    /// as duplicates, and the rest merged in steps: the same report and tables as merging every change.
    @Test func theChangesAStoreHasAlreadyAreCountedBeforeTheMerge() throws {
        let directory = try TemporaryDirectory()
        let phone = try divergedPhone(directory)
        let archive = try phone.export()
        let all = try phone.store.changes(after: nil)
        let half = Array(all.prefix(all.count / 2))
        let importing = try Replica("importing", in: directory, clock: ManualClock(ArchiveFixtures.epoch + 60_000))
        let merging = try Replica("merging", in: directory, clock: ManualClock(ArchiveFixtures.epoch + 60_000))
        try importing.store.merge(half)
        try merging.store.merge(half)

        let report = try importing.importArchive(archive)
        let mergeReport = try merging.store.merge(all)

        #expect(report.duplicates == half.count && report.newChanges == all.count - half.count)
        #expect(counts(report.merge) == counts(mergeReport))
        #expect(try importing.state() == merging.state())
        let again = try importing.importArchive(archive)
        #expect(again.duplicates == all.count && again.changesRead == all.count && again.newChanges == 0)
    }

    /// Changes dated too far ahead are held in quarantine, which the log filled in one statement cannot do: the
    /// import then merges change by change, and ends as merging the plausible ones does.
    @Test func anArchiveWithChangesFromTheFutureIsMergedChangeByChange() throws {
        let directory = try TemporaryDirectory()
        let phone = try divergedPhone(directory)
        let archive = try phone.export()
        let now = ArchiveFixtures.epoch + 3000
        let imported = try Replica("imported", in: directory, clock: ManualClock(now))
        let (report, filled) = try importFillingTheLog(imported, archive, limits: ArchiveLimits(maxClockDrift: 0))
        #expect(!filled)
        let merged = try Replica("merged", in: directory, clock: ManualClock(now))
        let all = try phone.store.changes(after: nil)
        let plausible = all.filter { $0.hlc.milliseconds <= now }
        let mergeReport = try merged.store.merge(plausible)

        #expect(plausible.count > 2600 && plausible.count < all.count)
        #expect(report.quarantined == all.count - plausible.count)
        #expect(report.newChanges == mergeReport.newChanges && report.annotationsCreated == 2600)
        #expect(try imported.store.quarantinedChanges().count == all.count - plausible.count)
        #expect(try imported.state() == merged.state())
        #expect(try devices(imported) == devices(merged))
    }

    /// The store's indexes as (name, table, SQL).
    func indexes(_ replica: Replica) throws -> [[String]] {
        try SQLiteDatabase(path: replica.path, mode: .readOnly).fetchAll(
            sql: "SELECT name, tbl_name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"
        ) { [try $0.string(0), try $0.string(1), try $0.string(2)] }
    }

    /// The log's and the annotations' indexes are dropped for the load and created again after it: the store ends
    /// with the indexes of a new store, each agreeing with its table; an import refused after the load leaves
    /// them as they were.
    @Test func theIndexesBuiltAfterTheLoadAreTheSchemasOwn() throws {
        let directory = try TemporaryDirectory()
        let phone = try divergedPhone(directory)
        let archive = try phone.export()
        let fresh = try Replica("fresh", in: directory, clock: ManualClock(ArchiveFixtures.epoch + 60_000))
        let schemaIndexes = try indexes(fresh)
        #expect(Set(schemaIndexes.map { $0[1] }).isSuperset(of: ["changes", "annotations"]))

        let imported = try Replica("imported", in: directory, clock: ManualClock(ArchiveFixtures.epoch + 60_000))
        let (_, filled) = try importFillingTheLog(imported, archive)
        #expect(filled)
        #expect(try indexes(imported) == schemaIndexes)
        let db = try SQLiteDatabase(path: imported.path, mode: .readOnly)
        #expect(try db.text(sql: "PRAGMA integrity_check") == "ok")
        let id = try #require(try db.text(sql: "SELECT entity_id FROM changes WHERE seq = 7"))
        #expect(try db.int(sql: "SELECT count(*) FROM changes INDEXED BY changes_by_entity WHERE entity_id = ?",
                           arguments: [id]) == db.int(sql: "SELECT count(*) FROM changes WHERE +entity_id = ?",
                                                      arguments: [id]))

        // The last annotation's state record says another note: refused once the log is loaded and projected.
        var lines = try ArchiveFixtures.lines(ofArchive: archive)
        let last = try #require(lines.lastIndex { $0.hasPrefix(#"{"type":"annotation""#) && $0.contains(#""note":""#) })
        let original = lines[last]
        lines[last] = original.replacingOccurrences(of: #""note":""#, with: #""note":"altered "#)
        #expect(lines[last] != original)
        let forged = directory.path("forged.jsonl.gz")
        try ArchiveFixtures.writeArchive(lines, to: forged)
        let refused = try Replica("refused", in: directory, clock: ManualClock(ArchiveFixtures.epoch + 60_000))
        let error = try #require(thrownError(ArchiveError.self) { try refused.importArchive(forged) })
        #expect(error.kind == .mismatch && error.line == last + 1)
        #expect(try indexes(refused) == schemaIndexes)
        #expect(try refused.store.changeCount() == 0)
    }

    @Test func changesWaitingForTheirCreateAreCountedAsMergingThemWould() throws {
        let directory = try TemporaryDirectory()
        let phone = try divergedPhone(directory)
        // Only the later changes: edits, deletes and positions whose annotations' creates are left out.
        let since = ArchiveFixtures.epoch + 500
        let partial = try phone.export(ExportFilter(since: since))
        let imported = try Replica("imported", in: directory, clock: ManualClock(ArchiveFixtures.epoch + 60_000))
        let report = try imported.importArchive(partial)
        let merged = try Replica("merged", in: directory, clock: ManualClock(ArchiveFixtures.epoch + 60_000))
        let later = try phone.store.changes(after: nil).filter { $0.hlc.milliseconds >= since }
        let mergeReport = try merged.store.merge(later)
        #expect(report.pending > 500)
        #expect(counts(report.merge) == counts(mergeReport))
        #expect(try imported.state() == merged.state())
    }
}

/// The export writes each annotation's state record straight to its line; it must be the very text the record's
/// JSON form gives (which the import compares and `list --json` prints).
@Suite struct AnnotationRecordTextTests {
    @Test func anExportedStateRecordIsTheTextOfTheRecordsJSON() throws {
        let directory = try TemporaryDirectory()
        let replica = try Replica("store", in: directory, clock: ManualClock(ArchiveFixtures.epoch))
        try ArchiveFixtures.populate(replica.store, clock: replica.clock)
        let odd = try replica.store.createAnnotation(
            .note, at: AnchorRequest(passage: "luceafarul.1"), note: "ghilimele \" și \\ și \u{1}\ttab",
            tags: ["ă", "z\"z"])
        let lines = try ArchiveFixtures.lines(ofArchive: try replica.export())
        let annotations = try replica.store.annotations(matching: AnnotationFilter(includeDeleted: true))
        #expect(annotations.contains { $0.id == odd.id } && annotations.contains { $0.note == nil })
        let expected = try annotations.map { try JSONWriter.encodeString(ArchiveFormat.record($0)) }.sorted()
        let written = lines.filter { $0.hasPrefix(#"{"type":"annotation""#) }.sorted()
        #expect(written == expected)
    }
}
