import Foundation
import Testing
@testable import Marginalia

/// The report's verdict made from its own pass over the log (`AuditVerification`, plan `shared`) is `verify()`'s,
/// problem for problem, on a healthy store and on stores damaged in each way the replay of annotations meets.
@Suite struct AuditVerificationTests {
    /// The verdict the one page and the pages carry, beside `verify()` of the same store.
    func verdicts(_ scenario: AuditReportTests.Scenario) throws -> [VerificationReport] {
        let store = scenario.laptop
        let page = scenario.directory.path("report-\(UUID().uuidString).html")
        let pages = scenario.directory.path("pages-\(UUID().uuidString)")
        #expect(AuditVerification.plan(AuditFilter(), backup: nil) == .shared)
        return [try store.writeAuditReport(AuditFilter(), toFile: page).report.verification,
                try store.writeAuditReport(AuditFilter(), toDirectory: pages).report.verification]
    }

    @Test func aHealthyStoreHasVerifysVerdict() throws {
        let scenario = try AuditReportTests.scenario()
        let expected = try scenario.laptop.verify()
        #expect(expected.isHealthy && expected.changeCount == 6)
        for verdict in try verdicts(scenario) { #expect(verdict == expected) }
    }

    @Test(arguments: [
        // A row that differs from its replay, a row the log never creates, a row missing.
        "UPDATE annotations SET note = 'not what the log says' WHERE kind = 'note'",
        """
        INSERT INTO annotations (id, kind, document, start_passage, start_offset, end_passage, end_offset, quote,
            prefix, suffix, created_edition, anchor_edition, note, color, tags, deleted, created_hlc, updated_hlc,
            clocks)
        SELECT '00000000-0000-7000-8000-000000000001', kind, document, start_passage, start_offset, end_passage,
            end_offset, quote, prefix, suffix, created_edition, anchor_edition, note, color, tags, deleted,
            created_hlc, updated_hlc, clocks FROM annotations LIMIT 1
        """,
        "DELETE FROM annotations WHERE kind = 'highlight'",
        // A change whose fields cannot be read: rejected, so verify runs whole and gives the same verdict.
        "DROP TRIGGER changes_refuse_update; UPDATE changes SET fields = '{\"bogus\": 1}' WHERE seq = 2",
    ])
    func aDamagedStoreHasVerifysVerdict(damage: String) throws {
        let scenario = try AuditReportTests.scenario()
        try scenario.laptop.db.executeScript(sql: damage)
        let expected = try scenario.laptop.verify()
        #expect(!expected.isHealthy)
        for verdict in try verdicts(scenario) { #expect(verdict == expected) }
    }

    @Test func aFilterThatReadsPartOfTheLogVerifiesApart() {
        #expect(AuditVerification.plan(AuditFilter(document: "luceafarul"), backup: nil) == .separate)
        #expect(AuditVerification.plan(AuditFilter(asOf: 1), backup: nil) == .separate)
        #expect(AuditVerification.plan(AuditFilter(), backup: "b.jsonl.gz") == .separate)
        #expect(AuditVerification.plan(AuditFilter(device: "laptop"), backup: nil) == .shared)
    }

    @Test func aPageOverItsLimitIsNotWritten() throws {
        let scenario = try AuditReportTests.scenario()
        let path = scenario.directory.path("large.html")
        let error = try #require(throws: MarginaliaError.self) {
            try scenario.laptop.writeAuditReport(AuditFilter(), toFile: path, maxBytes: 2_000)
        }
        let refusal = try #require(error.underlyingError as? AuditReportTooLarge)
        #expect(refusal.limit == 2_000 && refusal.bytes > 2_000 && refusal.path.hasSuffix("/large.html"))
        #expect(error.category == .refused)
        #expect(!FileManager.default.fileExists(atPath: path))
        let left = try FileManager.default.contentsOfDirectory(atPath: scenario.directory.path(""))
        #expect(left.filter { $0.hasPrefix(".") }.isEmpty, "scratch files left: \(left)")
        let (_, files) = try scenario.laptop.writeAuditReport(AuditFilter(), toFile: path, maxBytes: 200_000)
        #expect(files.bytes < 200_000 && FileManager.default.fileExists(atPath: path))
    }
}
