import Foundation
import Testing
@testable import Marginalia

/// `AnnotationStore.auditReport` and `forEachAuditDocument`: what an app gets to render an audit, on two stores that
/// meet by archive over two days.
@Suite struct AuditReportTests {
    static let source = makeSource([
        ("luceafarul", [("luceafarul.1", "A fost odată ca-n poveşti,"), ("luceafarul.2", "A fost ca niciodată,")]),
    ])
    static let day1 = Timestamp.parseISO8601("2026-11-02T10:00:00Z") ?? 0
    static let day = Int64(86_400_000)

    /// The laptop after it merged the phone's archive, the phone, the two annotations, and the archive's path.
    struct Scenario {
        let directory: TemporaryDirectory
        let laptop: AnnotationStore
        let phone: AnnotationStore
        let note: Annotation
        let highlight: Annotation
        let archive: String
    }

    /// Day 1: the laptop makes a note and a highlight and names itself; the phone names itself and takes the
    /// laptop's archive. Day 2: the phone edits the note (hostile text) and deletes the highlight; the laptop
    /// imports the phone's archive.
    static func scenario() throws -> Scenario {
        let directory = try TemporaryDirectory()
        let clock = ManualClock(day1)
        let laptop = try makeStore(directory, source: source, name: "laptop.db", wallClock: clock.now)
        let phone = try makeStore(directory, source: source, name: "phone.db", wallClock: clock.now)
        let note = try laptop.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.1"), note: "prima")
        let highlight = try laptop.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.2"))
        try laptop.nameDevice("laptop")
        try phone.nameDevice("phone <b>")
        try laptop.exportArchive(toFile: directory.path("laptop.jsonl.gz"))
        try phone.importArchive(path: directory.path("laptop.jsonl.gz"))
        clock.advance(day)
        try phone.editAnnotation(id: note.id, note: "<script>x()</script>\u{202E}")
        try phone.deleteAnnotation(id: highlight.id)
        let archive = directory.path("phone.jsonl.gz")
        try phone.exportArchive(toFile: archive)
        try laptop.importArchive(path: archive)
        return Scenario(directory: directory, laptop: laptop, phone: phone, note: note, highlight: highlight,
                        archive: archive)
    }

    /// Every document `filter` covers, as `forEachAuditDocument` hands them over.
    static func documents(_ store: AnnotationStore, _ filter: AuditFilter = AuditFilter()) throws -> [AuditDocument] {
        var documents: [AuditDocument] = []
        try store.forEachAuditDocument(filter) { documents.append($0) }
        return documents
    }

    @Test func theReportCountsEachDeviceTheTimelineAndWhatCameFromOutside() throws {
        let scenario = try Self.scenario()
        let report = try scenario.laptop.auditReport()
        #expect(report.verification.isHealthy)
        #expect(report.verification.head.sequence == 6)
        #expect(report.backup == nil && report.quarantined.isEmpty)
        #expect(report.devices.map(\.name) == ["laptop", "phone <b>"])
        #expect(report.devices.map(\.isThisDevice) == [true, false])
        #expect(report.devices[0].counts == ["create": 2, "set": 1])
        #expect(report.devices[1].counts == ["set": 1, "edit": 1, "delete": 1])
        #expect(report.devices[1].firstChange == Self.day1 && report.devices[1].lastChange >= Self.day1 + Self.day)
        #expect(report.changeCount == 6)
        #expect(report.timeline.days == 1)
        let midnight = Self.day1 - Self.day1 % Self.day
        #expect(report.timeline.buckets == [
            AuditTimeline.Bucket(start: midnight, counts: [scenario.laptop.deviceID: 3, scenario.phone.deviceID: 1]),
            AuditTimeline.Bucket(start: midnight + Self.day, counts: [scenario.phone.deviceID: 2]),
        ])
        #expect(report.receipts.count == 1)
        let receipt = try #require(report.receipts.first)
        #expect(receipt.kind == "import" && receipt.file == scenario.archive)
        #expect(receipt.newChanges == 3 && receipt.duplicates == 3 && receipt.changesRead == 6)
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: scenario.archive)))
        #expect(receipt.sha256 == (try SHA256Digest.hex(of: bytes)))
        #expect(report.documents == [AuditReport.DocumentSummary(id: "luceafarul", annotations: 2, changes: 4)])
        #expect(report.otherChanges.map(\.entity) == [.device, .device])
    }

    @Test func eachAnnotationCarriesEveryVersionWithItsFieldDiffsAndWhoDeletedIt() throws {
        let scenario = try Self.scenario()
        let documents = try Self.documents(scenario.laptop)
        #expect(documents.map(\.id) == ["luceafarul"])
        let annotations = try #require(documents.first?.annotations)
        #expect(annotations.map(\.id) == [scenario.note.id, scenario.highlight.id])
        let note = annotations[0]
        #expect(note.current?.note == "<script>x()</script>\u{202E}")
        #expect(note.versions.map(\.operation) == ["create", "edit"])
        #expect(note.versions[1].change.device == scenario.phone.deviceID)
        #expect(note.versions[1].fields == [FieldTransition(
            register: .note, previous: .text("prima"), value: .text("<script>x()</script>\u{202E}"), keptBy: nil)])
        #expect(note.deletedBy == nil && note.orphanReason == nil)
        let highlight = annotations[1]
        #expect(highlight.current?.deleted == true)
        #expect(highlight.deletedBy?.device == scenario.phone.deviceID)
        #expect(highlight.deletedBy == highlight.versions.last?.change)
        // The history command's entries are the report's.
        #expect(try scenario.laptop.historyEntries(id: scenario.note.id) == note.versions)
    }

    @Test func aDeviceATimeOrAnAsOfNarrowsWhatIsShown() throws {
        let scenario = try Self.scenario()
        let byPhone = AuditFilter(device: "phone <b>")
        let report = try scenario.laptop.auditReport(byPhone)
        #expect(report.devices.map(\.id) == [scenario.phone.deviceID])
        #expect(report.changeCount == 3)
        let versions = try Self.documents(scenario.laptop, byPhone).flatMap(\.annotations).flatMap(\.versions)
        #expect(versions.map(\.operation) == ["edit", "delete"])

        let secondDay = AuditFilter(since: Self.day1 - Self.day1 % Self.day + Self.day)
        #expect(try scenario.laptop.auditReport(secondDay).changeCount == 2)
        #expect(try Self.documents(scenario.laptop, secondDay).flatMap(\.annotations).count == 2)

        let asOf = AuditFilter(asOf: Self.day1 + 1000)
        let before = try Self.documents(scenario.laptop, asOf).flatMap(\.annotations)
        #expect(before.map { $0.current?.note } == ["prima", nil])
        #expect(before.map { $0.current?.deleted } == [false, false])
        #expect(before.flatMap(\.versions).map(\.operation) == ["create", "create"])
        #expect(try scenario.laptop.auditReport(asOf).changeCount == 4)

        #expect(try Self.documents(scenario.laptop, AuditFilter(document: "nowhere")).isEmpty)
        #expect(throws: MarginaliaError.self) { try scenario.laptop.auditReport(AuditFilter(device: "nobody")) }
    }

    @Test func anOrphanSaysWhyWhenContentWithoutItsPassageIsAttached() throws {
        let scenario = try Self.scenario()
        let edition2 = makeSource(edition: "test-2", [("luceafarul", [("luceafarul.2", "A fost ca niciodată,")])])
        let content = scenario.directory.path("content-test-2.db")
        try ContentBuilder.build(edition2, output: content)
        try scenario.laptop.attachContent(path: content)
        let annotations = try Self.documents(scenario.laptop).flatMap(\.annotations)
        #expect(annotations[0].orphanReason != nil)
        #expect(annotations[1].orphanReason == nil)  // deleted: not checked
        var unchecked: [AuditAnnotation] = []
        try scenario.laptop.forEachAuditDocument(AuditFilter(), checkAnchors: false) { unchecked += $0.annotations }
        #expect(unchecked.allSatisfy { $0.orphanReason == nil })
    }
}

extension AuditReportTests {
    @Test func aSpanOfMoreThan120DaysIsCountedInWeeksFromMonday() {
        // Day 20,003 since 1970 is a Monday (2024-10-07); day 20,199 the Monday of day 20,200.
        let weekly = AuditTimeline(days: [("a", 20_003, 1), ("a", 20_009, 2), ("b", 20_010, 3), ("a", 20_200, 1)])
        #expect(weekly.days == 7)
        #expect(weekly.buckets == [
            AuditTimeline.Bucket(start: 20_003 * Self.day, counts: ["a": 3]),
            AuditTimeline.Bucket(start: 20_010 * Self.day, counts: ["b": 3]),
            AuditTimeline.Bucket(start: 20_199 * Self.day, counts: ["a": 1]),
        ])
        #expect(Timestamp.iso8601(milliseconds: 20_003 * Self.day) == "2024-10-07T00:00:00.000Z")
        let daily = AuditTimeline(days: [("a", 20_003, 1), ("b", 20_123, 2)])
        #expect(daily.days == 1 && daily.buckets.map(\.total) == [1, 2])
    }
}
