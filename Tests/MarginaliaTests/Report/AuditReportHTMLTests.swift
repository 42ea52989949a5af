import Foundation
import Testing
@testable import Marginalia

/// `writeAuditReport`: the HTML file and the directory of pages, read as text (the browser test opens them).
@Suite struct AuditReportHTMLTests {
    /// How many times `needle` occurs in `text`.
    static func occurrences(of needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    @Test func theOnePageShowsEveryChangeOnceAndEveryStoreTextEscaped() throws {
        let scenario = try AuditReportTests.scenario()
        let store = scenario.laptop
        let path = scenario.directory.path("report.html")
        let backup = scenario.directory.path("backup.jsonl.gz")
        try store.exportArchive(toFile: backup)
        let report = try store.auditReport(against: backup)
        let files = try store.writeAuditReport(report, toFile: path)
        let html = try String(contentsOfFile: path, encoding: .utf8)
        #expect(files.paths == [path] && files.bytes == html.utf8.count)
        #expect(files.documents == 1 && files.changes == 6)
        let changes = try store.log().map(\.changeID)
        #expect(Self.occurrences(of: "data-change=\"", in: html) == changes.count)
        for id in changes { #expect(Self.occurrences(of: "data-change=\"\(id)\"", in: html) == 1) }
        #expect(Self.occurrences(of: "<script", in: html) == 1)
        #expect(html.contains("&lt;script&gt;x()&lt;/script&gt;&lt;U+202E&gt;"))
        #expect(!html.contains("\u{202E}"))
        #expect(html.contains(">phone &lt;b&gt;</th>"))
        #expect(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\""
            + "\(try AuditReportStyle.contentSecurityPolicy())\">"))
        #expect(html.contains("<p id=\"verdict\" class=\"verdict ok\" data-ok=\"true\"><strong>OK</strong>"))
        #expect(html.contains("<dt>Checked against</dt><dd><code>\(HTMLText.escaped(backup))</code>: the history up "
            + "to seq 6 is unchanged since it was written</dd>"))
        #expect(html.contains("<tr data-device=\"\(scenario.phone.deviceID)\" data-total=\"3\">"))
        #expect(html.contains("[deleted by phone &lt;b&gt; "))
        // No address a browser would fetch: no src, no external href, no url().
        #expect(!html.contains(" src=") && !html.contains("url(") && !html.contains("href=\"http"))
        #expect(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">") && html.hasSuffix("</html>\n"))
    }

    @Test func anExistingFileIsReplacedOnlyWithForce() throws {
        let scenario = try AuditReportTests.scenario()
        let path = scenario.directory.path("report.html")
        try Data("earlier".utf8).write(to: URL(fileURLWithPath: path))
        let report = try scenario.laptop.auditReport()
        #expect(throws: MarginaliaError.self) { try scenario.laptop.writeAuditReport(report, toFile: path) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "earlier")
        try scenario.laptop.writeAuditReport(report, toFile: path, force: true)
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
        #expect(throws: MarginaliaError.self) {
            try scenario.laptop.writeAuditReport(report, toFile: scenario.directory.path("laptop.db"), force: true)
        }
    }

    @Test func splitPagesHoldTheSameChangesAsTheOnePage() throws {
        let scenario = try AuditReportTests.scenario()
        let directory = scenario.directory.path("pages")
        let report = try scenario.laptop.auditReport()
        let files = try scenario.laptop.writeAuditReport(report, toDirectory: directory)
        #expect(files.paths.map { URL(fileURLWithPath: $0).lastPathComponent } == ["document-1.html", "index.html"])
        #expect(files.documents == 1 && files.changes == 6)
        let index = try String(contentsOfFile: "\(directory)/index.html", encoding: .utf8)
        let page = try String(contentsOfFile: "\(directory)/document-1.html", encoding: .utf8)
        #expect(index.contains("<a href=\"document-1.html\">luceafarul</a>"))
        #expect(Self.occurrences(of: "data-change=\"", in: index) == 2)
        #expect(Self.occurrences(of: "data-change=\"", in: page) == 4)
        #expect(page.contains("<h2>luceafarul</h2>"))
        #expect(throws: MarginaliaError.self) { try scenario.laptop.writeAuditReport(report, toDirectory: directory) }
    }
}

extension AuditReportHTMLTests {
    @Test func aHistoryThatDiffersFromTheBackupIsAFailedVerdict() throws {
        let scenario = try AuditReportTests.scenario()
        // The phone's archive: its log holds the same changes in another order than the laptop's.
        let report = try scenario.laptop.auditReport(against: scenario.archive)
        #expect(!report.verification.isHealthy)
        let path = scenario.directory.path("report.html")
        try scenario.laptop.writeAuditReport(report, toFile: path)
        let html = try String(contentsOfFile: path, encoding: .utf8)
        #expect(html.contains("<p id=\"verdict\" class=\"verdict bad\" data-ok=\"false\"><strong>FAILED</strong>"))
        #expect(html.contains("<ul class=\"problems\">"))
    }
}

extension AuditReportHTMLTests {
    @Test func verifyingBesideTheDocumentsWritesTheSamePageAsOneAfterTheOther() throws {
        let scenario = try AuditReportTests.scenario()
        let store = scenario.laptop
        let inTurn = scenario.directory.path("in-turn.html")
        let together = scenario.directory.path("together.html")
        try store.writeAuditReport(try store.auditReport(against: scenario.archive), toFile: inTurn)
        let (report, files) = try store.writeAuditReport(AuditFilter(), against: scenario.archive, toFile: together)
        #expect(!report.verification.isHealthy && report.backup == scenario.archive)
        #expect(files.documents == 1 && files.changes == 6)
        // The pages differ in the time they were made only.
        func page(_ path: String) throws -> [Substring] {
            try String(contentsOfFile: path, encoding: .utf8)
                .replacingOccurrences(of: #"Made [0-9T:.-]+Z;"#, with: "Made …;", options: .regularExpression)
                .split(separator: "\n")
        }
        let difference = try page(together).difference(from: page(inTurn))
        #expect(difference.isEmpty, "\(difference)")
        #expect(try String(contentsOfFile: together, encoding: .utf8).utf8.count == files.bytes)
        let left = try FileManager.default.contentsOfDirectory(atPath: scenario.directory.path(""))
        #expect(left.filter { $0.hasPrefix(".") }.isEmpty, "scratch files left: \(left)")
    }
}

extension AuditReportHTMLTests {
    @Test func splitPagesVerifiedBesideTheDocumentsAreTheOnesMadeInTurn() throws {
        let scenario = try AuditReportTests.scenario()
        let store = scenario.laptop
        let inTurn = scenario.directory.path("in-turn")
        let together = scenario.directory.path("together")
        try store.writeAuditReport(try store.auditReport(), toDirectory: inTurn)
        let (report, files) = try store.writeAuditReport(AuditFilter(), toDirectory: together)
        #expect(report.verification.isHealthy && files.changes == 6 && files.documents == 1)
        for name in ["index.html", "document-1.html"] {
            func page(_ directory: String) throws -> String {
                try String(contentsOfFile: "\(directory)/\(name)", encoding: .utf8)
                    .replacingOccurrences(of: #"Made [0-9T:.-]+Z;"#, with: "Made …;", options: .regularExpression)
            }
            #expect(try page(inTurn) == page(together), "\(name)")
        }
    }
}

extension AuditReportHTMLTests {
    @Test func aFieldThatLostTheMergeNamesTheVersionThatKeptItsValue() throws {
        let directory = try TemporaryDirectory()
        let (a, b, id) = try ArchiveFixtures.rivalNoteEdits(in: directory)
        let kept = try #require(try b.store.history(id: id).last)
        try b.importArchive(try a.export())
        let path = directory.path("report.html")
        try b.store.writeAuditReport(AuditFilter(), toFile: path)
        let html = try String(contentsOfFile: path, encoding: .utf8)
        // a's older edit arrived after b's: it lost, and b's version is named by its time and device.
        #expect(html.contains("<li>note: <del>«din b»</del> → <ins>«din a»</ins> <b>(lost the merge: the version of "
            + "\(Timestamp.iso8601(milliseconds: kept.madeAt)) by "))
        #expect(Self.occurrences(of: "kept its value)</b>", in: html) == 1)
        #expect(html.contains("<li>note: «prima»") && html.contains("<code>\(id)</code>"))
    }
}
