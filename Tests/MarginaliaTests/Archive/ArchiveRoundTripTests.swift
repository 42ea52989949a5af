import Foundation
import Testing
@testable import Marginalia

/// Export, import, backup and restore keep every record (reliability test plan, B.15 and D.21).
@Suite struct ArchiveRoundTripTests {
    typealias Fixtures = ArchiveFixtures

    /// A populated store `a.db` on its own clock.
    struct Populated {
        let directory: TemporaryDirectory
        let clock = ManualClock(ArchiveFixtures.epoch)
        let store: AnnotationStore
        let ids: [String]

        init() throws {
            directory = try TemporaryDirectory()
            store = try ArchiveFixtures.store(directory, "a.db", clock: clock)
            ids = try ArchiveFixtures.populate(store, clock: clock)
        }

        /// A second, empty store in the same directory.
        func emptyStore(_ name: String) throws -> AnnotationStore {
            try ArchiveFixtures.store(directory, name, clock: ManualClock(ArchiveFixtures.epoch + 3_600_000))
        }

        func export(_ name: String, filter: ExportFilter = ExportFilter()) throws -> String {
            let path = directory.path(name)
            try store.exportArchive(toFile: path, filter: filter)
            return path
        }
    }

    /// What importing the populated store into an empty one reports.
    static func fullImportReport(header: ArchiveHeader?) -> ImportReport {
        var report = ImportReport()
        report.changesRead = 12
        report.newChanges = 12
        report.annotationsCreated = 5
        // An edit, three deletes, an undelete, two positions.
        report.updates = 7
        report.deletions = 3
        report.header = header
        return report
    }

    static func header(of path: String) throws -> ArchiveHeader {
        try ArchiveReader(path: path).read().header
    }

    // MARK: - Round trip

    @Test func exportImportExportGivesTheSameRecords() throws {
        let fixture = try Populated()
        let first = try fixture.export("a.jsonl.gz")
        let b = try fixture.emptyStore("b.db")
        let report = try b.importArchive(path: first)
        #expect(report == Self.fullImportReport(header: try Self.header(of: first)))

        let second = fixture.directory.path("b.jsonl.gz")
        #expect(try b.exportArchive(toFile: second) == ArchiveCounts(changes: 12, annotations: 5, positions: 2))
        let linesA = try Fixtures.lines(ofArchive: first)
        let receivedB = try Fixtures.lines(ofArchive: second)
        // B received every change by one import, which its archive carries (format 4): a receipt record, and each
        // change naming it. Without them, every record but the header is the same, byte for byte.
        #expect(receivedB[1].hasPrefix(#"{"type":"receipt","id":1,"kind":"import","receivedAt":"#))
        #expect(receivedB.filter { $0.hasSuffix(#","receipt":1}"#) }.count == 12)
        let linesB = Fixtures.withoutReceipts(receivedB)
        #expect(linesA.count == 1 + 12 + 5 + 2 + 1)
        #expect(Array(linesA.dropFirst()).map { Array($0.utf8) } == Array(linesB.dropFirst()).map { Array($0.utf8) })
        // The header names the device that wrote it and when; nothing else differs.
        let headerA = try Self.header(of: first)
        var headerB = try Self.header(of: second)
        #expect(headerB.device == b.deviceID && headerA.device == fixture.store.deviceID)
        headerB.device = headerA.device
        headerB.createdAt = headerA.createdAt
        #expect(headerB == headerA)
        // The importing store rebuilt the same hash chain: both headers name the same head.
        #expect(headerA == ArchiveHeader(device: fixture.store.deviceID, createdAt: headerA.createdAt,
                                         schemaVersion: Int64(UserSchema.currentVersion), editions: ["test-1"],
                                         partial: false, head: try fixture.store.logHead()))
    }

    @Test func theSameStoreExportsTheSameArchiveButForItsCreationTime() throws {
        let fixture = try Populated()
        let first = try fixture.export("1.jsonl.gz")
        let second = try fixture.export("2.jsonl.gz")
        let linesA = try Fixtures.lines(ofArchive: first)
        let linesB = try Fixtures.lines(ofArchive: second)
        #expect(Array(linesA.dropFirst()) == Array(linesB.dropFirst()))
        var headerB = try Self.header(of: second)
        headerB.createdAt = try Self.header(of: first).createdAt
        #expect(headerB == (try Self.header(of: first)))
        // With the creation time fixed, the compressed bytes are identical too.
        let sinks = [ByteArraySink(), ByteArraySink()]
        for sink in sinks { try fixture.store.exportArchive(to: sink, createdAt: "2023-11-14T22:13:20.000Z") }
        #expect(sinks[0].bytes == sinks[1].bytes)
        #expect(sinks[0].bytes.count > 500)
    }

    @Test func importingIntoAnEmptyStoreListsTheSameState() throws {
        let fixture = try Populated()
        let path = try fixture.export("a.jsonl.gz")
        let b = try fixture.emptyStore("b.db")
        _ = try b.importArchive(path: path)
        let original = try Fixtures.state(of: fixture.store)
        let imported = try Fixtures.state(of: b)
        #expect(original.annotations.count == 5 && original.annotations.filter(\.deleted).count == 2)
        #expect(original.positions.count == 2 && original.changeIDs.count == 12)
        #expect(imported == original)
        #expect(try b.verify().problems == [])
    }

    @Test func importingTheSameFileAgainAddsNothing() throws {
        let fixture = try Populated()
        let path = try fixture.export("a.jsonl.gz")
        let b = try fixture.emptyStore("b.db")
        let header = try Self.header(of: path)
        #expect(try b.importArchive(path: path) == Self.fullImportReport(header: header))
        let dump = try canonicalDump(b.path)
        var again = ImportReport()
        again.changesRead = 12
        again.duplicates = 12
        again.header = header
        for attempt in 2...3 {
            #expect(try b.importArchive(path: path) == again, "import \(attempt)")
            #expect(try canonicalDump(b.path) == dump, "import \(attempt)")
            #expect(try b.changeCount() == 12)
        }
        // The store that wrote the file has every change already, and keeps its device id.
        let device = fixture.store.deviceID
        #expect(try fixture.store.importArchive(path: path) == again)
        #expect(fixture.store.deviceID == device)
    }

    // MARK: - Partial archives

    @Test func aDocumentFilterExportsOnlyThatDocument() throws {
        let fixture = try Populated()
        let path = try fixture.export("scrisoarea.jsonl.gz", filter: ExportFilter(document: "scrisoarea-i"))
        var changes: [Change] = []
        var stateIDs: [String] = []
        let summary = try ArchiveReader(path: path).read { record, _ in
            switch record {
            case .change(let change, _): changes.append(change)
            case .annotation(let object): stateIDs.append(object["id"]?.stringValue ?? "?")
            case .position(let object): stateIDs.append(object["document"]?.stringValue ?? "?")
            case .header, .receipt, .annotationText: break
            }
        }
        #expect(summary.header.partial)
        #expect(summary.header.filter == ["document": "scrisoarea-i"])
        #expect(summary.counts == ArchiveCounts(changes: 6, annotations: 2, positions: 1))
        let bookmark = fixture.ids[2]
        let gone = fixture.ids[4]
        let expected = try fixture.store.log().filter { [bookmark, gone, "scrisoarea-i"].contains($0.entityID) }
        #expect(changes == expected)
        #expect(stateIDs == [bookmark, gone].sorted() + ["scrisoarea-i"])

        let b = try fixture.emptyStore("b.db")
        _ = try b.importArchive(path: path)
        let scrisoarea = try fixture.store.annotations(
            matching: AnnotationFilter(document: "scrisoarea-i", includeDeleted: true))
        #expect(try b.annotations(matching: AnnotationFilter(includeDeleted: true)) == scrisoarea)
        #expect(try b.positions().map(\.document) == ["scrisoarea-i"])
    }

    @Test func aSinceFilterExportsOnlyLaterChangesAndTheirEarlierCreatesArriveLater() throws {
        let fixture = try Populated()
        let since = ArchiveFixtures.epoch + 6_500
        let path = try fixture.export("since.jsonl.gz", filter: ExportFilter(since: since))
        var changes: [Change] = []
        let summary = try ArchiveReader(path: path).read { record, _ in
            if case .change(let change, _) = record { changes.append(change) }
        }
        #expect(summary.header.partial)
        #expect(summary.header.filter == ["since": "2023-11-14T22:13:26.500Z"])
        // Changes 7 to 12 of `populate`; the annotations they touched (note, bookmark, gone) and both positions.
        #expect(summary.counts == ArchiveCounts(changes: 6, annotations: 3, positions: 2))
        #expect(changes == Array(try fixture.store.log().suffix(6)))
        #expect(changes.allSatisfy { $0.hlc.milliseconds >= since })

        // Into a store that has none of the creates: the annotation changes wait, the positions apply.
        let b = try fixture.emptyStore("b.db")
        var expected = ImportReport()
        expected.changesRead = 6
        expected.newChanges = 6
        expected.updates = 2
        expected.pending = 4
        expected.header = summary.header
        #expect(try b.importArchive(path: path) == expected)
        #expect(try b.annotations(matching: AnnotationFilter(includeDeleted: true)).isEmpty)
        #expect(try b.positions() == (try fixture.store.positions()))
        // The full archive brings the creates; each folds the changes that waited for it.
        _ = try b.importArchive(path: try fixture.export("full.jsonl.gz"))
        #expect(try Fixtures.state(of: b) == (try Fixtures.state(of: fixture.store)))
    }

    // MARK: - Dry run

    @Test func aDryRunReportsWhatTheImportDoesAndWritesNothing() throws {
        let fixture = try Populated()
        let path = try fixture.export("a.jsonl.gz")
        let b = try fixture.emptyStore("b.db")
        // Something already there, so that the file is merged with existing data.
        try b.setPosition(document: "luceafarul", at: TextPosition(passage: "luceafarul.4", offset: 2))
        let dump = try canonicalDump(b.path)
        let dryRun = try b.importArchive(path: path, dryRun: true)
        #expect(try canonicalDump(b.path) == dump)
        #expect(try b.changeCount() == 1)
        let real = try b.importArchive(path: path)
        #expect(real == dryRun)
        // b's position was set later (its clock is an hour ahead), so it kept it: one conflict resolved.
        var expected = Self.fullImportReport(header: try Self.header(of: path))
        expected.updates = 6
        expected.conflictsResolved = 1
        expected.deletionsByDevice = [fixture.store.deviceID: 3]
        expected.conflicts = [MergeConflict(id: "luceafarul", field: "position", lostValue: "luceafarul.2+5",
                                            keptValue: "luceafarul.4+2", lostChangeID: real.conflicts.first?.lostChangeID ?? "",
                                            lostDevice: fixture.store.deviceID)]
        #expect(real == expected)
        #expect(try b.position(document: "luceafarul")?.position == TextPosition(passage: "luceafarul.4", offset: 2))
    }

    // MARK: - Backup and restore

    @Test func restoringABackupGivesExactlyWhatItHeldUnderANewDeviceID() throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock(ArchiveFixtures.epoch)
        let storePath = directory.path("user.db")
        let backupPath = directory.path("backup.jsonl.gz")
        var store: AnnotationStore? = try Fixtures.store(directory, clock: clock)
        try Fixtures.populate(try #require(store), clock: clock)
        let held = try Fixtures.state(of: try #require(store))
        let report = try #require(store).backup(to: backupPath)
        let size = try Fixtures.read(backupPath).count
        #expect(report == BackupReport(path: backupPath,
                                       counts: ArchiveCounts(changes: 12, annotations: 5, positions: 2),
                                       compressedBytes: UInt64(size)))
        // Changes after the backup are what a restore takes back.
        clock.advance(1000)
        try #require(store).createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.4", quote: "fată"))
        let oldDevice = try #require(store).deviceID
        store = nil
        let before = try canonicalDump(storePath)

        let restored = try AnnotationStore.restore(archive: backupPath, to: storePath)
        #expect(restored.verification.summary.counts == ArchiveCounts(changes: 12, annotations: 5, positions: 2))
        #expect(restored.verification.annotationsChecked == 5 && restored.verification.positionsChecked == 2)
        // The store replaced was healthy: the restored one is still its device.
        #expect(restored.deviceID == oldDevice && restored.keptDevice)
        let previous = try #require(restored.previousStore)
        let name = URL(fileURLWithPath: previous).lastPathComponent
        #expect(previous == directory.path(name))
        #expect(name.wholeMatch(of: /user\.db\.\d{8}T\d{6}Z\.bak/) != nil, "\(name)")
        #expect(try canonicalDump(previous) == before)

        let reopened = try Fixtures.store(directory, clock: clock)
        #expect(reopened.deviceID == restored.deviceID)
        var state = try Fixtures.state(of: reopened)
        #expect(state.annotations == held.annotations && state.positions == held.positions)
        #expect(state.changeIDs == held.changeIDs)
        state.tables = held.tables
        #expect(state == held)
        #expect(try reopened.verify().problems == [])
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path("")).sorted()
        #expect(files.filter { $0.hasSuffix(".tmp") } == [])
        #expect(files.contains(name) && files.contains("backup.jsonl.gz") && files.contains("user.db"))
    }

    @Test func aDryRunRestoreAndAPartialArchiveReplaceNothing() throws {
        let fixture = try Populated()
        let full = try fixture.export("full.jsonl.gz")
        let partial = try fixture.export("part.jsonl.gz", filter: ExportFilter(document: "luceafarul"))
        let target = fixture.directory.path("other.db")
        try fixture.emptyStore("other.db")
            .setPosition(document: "luceafarul", at: TextPosition(passage: "luceafarul.1", offset: 1))
        let before = try canonicalDump(target)
        let dryRun = try AnnotationStore.restore(archive: full, to: target, dryRun: true)
        #expect(dryRun.previousStore == nil && dryRun.verification.summary.counts.changes == 12)
        #expect(throws: MarginaliaError(ArchiveError(
            file: partial, kind: .invalidRecord,
            reason: "a partial archive (a filtered export) cannot be restored; import it instead"))) {
            try AnnotationStore.restore(archive: partial, to: target)
        }
        #expect(try canonicalDump(target) == before)
        let files = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path(""))
        #expect(files.filter { $0.hasSuffix(".tmp") || $0.hasSuffix(".bak") } == [])
    }

    @Test func anExistingBackupIsReplacedOnlyByAVerifiedOne() throws {
        let fixture = try Populated()
        let path = fixture.directory.path("backup.jsonl.gz")
        _ = try fixture.store.backup(to: path)
        let good = try Fixtures.read(path)
        let filesBefore = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path("")).sorted()
        fixture.clock.advance(1000)
        try fixture.store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.2"), note: "nou")
        // A cap that the new archive's second line already passes makes its verification fail.
        #expect(throws: MarginaliaError(ArchiveError(
            file: path, line: 2, kind: .tooLarge,
            reason: "the backup failed verification, nothing was replaced: more than 1 records"))) {
            try fixture.store.backup(to: path, limits: ArchiveLimits(maxRecords: 1))
        }
        #expect(try Fixtures.read(path) == good)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path("")).sorted() == filesBefore)
        // A verified backup does replace it.
        let report = try fixture.store.backup(to: path)
        #expect(report.counts == ArchiveCounts(changes: 13, annotations: 6, positions: 2))
        #expect(try Fixtures.read(path) != good)
        #expect(try ArchiveVerifier.verify(path: path).summary.counts == report.counts)
    }

    @Test func aBackupOrExportOverTheStoreItselfIsRefused() throws {
        let fixture = try Populated()
        let path = fixture.store.path
        let before = try canonicalDump(path)
        let refusal = OutputRefusal(path: path, what: "the store itself", remedy: .anotherFile)
        #expect(throws: MarginaliaError(refusal)) { try fixture.store.backup(to: path) }
        #expect(throws: MarginaliaError(refusal)) { try fixture.store.exportArchive(toFile: path, force: true) }
        #expect(throws: MarginaliaError(OutputRefusal(path: path + "-wal", what: "the store's write-ahead log",
                                      remedy: .anotherFile))) {
            try fixture.store.backup(to: path + "-wal")
        }
        #expect(Array(try Fixtures.read(path).prefix(16)) == Array("SQLite format 3\u{0}".utf8))
        #expect(try canonicalDump(path) == before)
        #expect(try AnnotationStore.open(path: path, access: .readWrite).changeCount() == 12)
    }

    @Test func aStoreWhoseClockOnceRanAheadCanStillBeBackedUpAndRestored() throws {
        let directory = try TemporaryDirectory()
        // The device's clock was two days ahead while the reader annotated, then it was corrected.
        let clock = ManualClock(Timestamp.nowMilliseconds() + 2 * 86_400_000)
        let store = try Fixtures.store(directory, clock: clock)
        try store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.1"), note: "ahead")
        clock.set(Timestamp.nowMilliseconds())
        let path = directory.path("backup.jsonl.gz")
        #expect(try store.backup(to: path).counts == ArchiveCounts(changes: 1, annotations: 1, positions: 0))
        #expect(try ArchiveVerifier.verify(path: path).annotationsChecked == 1)
        let restored = directory.path("restored.db")
        #expect(try AnnotationStore.restore(archive: path, to: restored).verification.summary.counts.changes == 1)
    }

    // MARK: - Verification

    @Test func theVerifierChecksAGoodArchiveCompletely() throws {
        let fixture = try Populated()
        let path = try fixture.export("a.jsonl.gz")
        let verification = try ArchiveVerifier.verify(path: path)
        let lines = try Fixtures.lines(ofArchive: path)
        var expected = ArchiveVerification(summary: ArchiveSummary(
            header: try Self.header(of: path), counts: ArchiveCounts(changes: 12, annotations: 5, positions: 2),
            compressedBytes: UInt64(try Fixtures.read(path).count),
            decompressedBytes: UInt64(lines.reduce(0) { $0 + $1.utf8.count + 1 }),
            sha256: try SHA256Digest.hex(of: Array(try Fixtures.read(path)))))
        expected.annotationsChecked = 5
        expected.positionsChecked = 2
        #expect(verification == expected)
    }

    @Test func theVerifierRefusesAStateRecordThatItsChangesDoNotGive() throws {
        let fixture = try Populated()
        let path = try fixture.export("a.jsonl.gz")
        var lines = try Fixtures.lines(ofArchive: path)
        let index = try #require(lines.firstIndex {
            $0.hasPrefix(#"{"type":"annotation""#) && $0.contains(#""note":"alt început""#)
        })
        lines[index] = lines[index].replacingOccurrences(of: #""note":"alt început""#, with: #""note":"forged""#)
        try Fixtures.writeArchive(lines, to: path)
        #expect(thrownError(ArchiveError.self) { _ = try ArchiveVerifier.verify(path: path) } == ArchiveError(
            file: path, line: index + 1, kind: .mismatch,
            reason: "the state record of annotation \(fixture.ids[0]) differs from the replay of its changes"))
    }
}
