import Foundation
import Testing
@testable import Marginalia

/// An import into an empty store fills the log first and projects it once (`projectWholeLog`); it must end in the
/// same tables and report the same as merging the same changes one by one (`merge`, which always projects as it
/// goes), over more annotations than one page of the projection holds.
@Suite struct EmptyStoreImportTests {
    /// Everything a report says, the listed conflicts included.
    func counts(_ report: ImportReport) -> [String] {
        [
            "read \(report.changesRead)", "new \(report.newChanges)", "duplicates \(report.duplicates)",
            "created \(report.annotationsCreated)", "updates \(report.updates)", "deletions \(report.deletions)",
            "conflicts \(report.conflictsResolved)", "pending \(report.pending)", "quarantined \(report.quarantined)",
        ] + report.conflicts.map { "\($0.id) \($0.field) \($0.keptValue) \($0.lostValue) \($0.lostChangeID)" }
    }

    /// A phone and a laptop that wrote 2,600 annotations, then edited, deleted and moved the same ones each on its
    /// own (the laptop first, so that its edits lose), and met again: the phone's store.
    func divergedPhone(_ directory: TemporaryDirectory) throws -> Replica {
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
            for id in ids where id.hasPrefix("a") || id.hasPrefix("b") {
                try laptop.store.editAnnotation(id: id, note: "de pe laptop", color: "green")
            }
            for id in ids where id.hasPrefix("c") { try laptop.store.deleteAnnotation(id: id) }
        }
        try laptop.store.setPosition(document: "luceafarul", at: TextPosition(passage: "luceafarul.2", offset: 1))
        phone.clock.advance(5000)
        try phone.store.batch {
            for id in ids where id.hasPrefix("a") || id.hasPrefix("d") {
                try phone.store.editAnnotation(id: id, note: "de pe telefon", addTags: ["t9"])
            }
        }
        try phone.store.setPosition(document: "luceafarul", at: TextPosition(passage: "luceafarul.4", offset: 2))
        try phone.importArchive(try laptop.export())
        return phone
    }

    @Test func aWholeArchiveIntoAnEmptyStoreEndsAndReportsAsMergingChangeByChange() throws {
        let directory = try TemporaryDirectory()
        let phone = try divergedPhone(directory)
        let archive = try phone.export()

        let imported = try Replica("imported", in: directory, clock: ManualClock(ArchiveFixtures.epoch + 60_000))
        let report = try imported.importArchive(archive)
        let merged = try Replica("merged", in: directory, clock: ManualClock(ArchiveFixtures.epoch + 60_000))
        let mergeReport = try merged.store.merge(try phone.store.changes(after: nil))

        #expect(report.annotationsCreated == 2600 && report.updates > 500 && report.deletions > 100)
        #expect(report.conflictsResolved > 100 && report.conflicts.count == MergeConflict.listedLimit)
        #expect(counts(report) == counts(mergeReport))
        #expect(try imported.state() == merged.state())
        #expect(try imported.state() == phone.state())
        #expect(try imported.store.verify().problems == [])
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
        #expect(counts(report) == counts(mergeReport))
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
