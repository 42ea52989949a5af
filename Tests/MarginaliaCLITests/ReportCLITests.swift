import Foundation
import MarginaliaTestSupport
import Testing

/// `marginalia report` through the built binary: what it prints, its usage errors, --force, --split, --json, and a
/// rewritten log reported as such (the browser test opens the page).
@Suite struct ReportCLITests {
    /// A store with one note written, then overwritten (seq 1, 2).
    func noteRewritten() throws -> (CLIWorkspace, String) {
        let workspace = try CLIWorkspace()
        let id = try workspace.ok(["note", "mai-am-un-singur-dor.2", "prima <b>"])
        try workspace.ok(["edit", id, "--note", "a doua"])
        return (workspace, id)
    }

    @Test func theReportIsWrittenAndSaysWhatItHolds() throws {
        let (workspace, id) = try noteRewritten()
        let path = workspace.path("audit.html")
        let result = try workspace.run(["report", path])
        #expect(result.status == 0 && result.stdout.isEmpty)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(result.stderr == "Wrote \(path): 2 changes in 1 document, \(size) bytes\n")
        let html = try String(contentsOfFile: path, encoding: .utf8)
        #expect(html.contains("<code>\(id)</code>") && html.contains("&lt;b&gt;"))

        let again = try workspace.run(["report", path])
        #expect(again.status == 1 && again.stderr.hasPrefix("Error: "), "\(again.status): \(again.stderr)")
        let json = try #require(try workspace.run(["--json", "report", path, "--force"]).json() as? [String: Any])
        #expect(json["ok"] as? Bool == true && json["changes"] as? Int == 2 && json["documents"] as? Int == 1)
        #expect((json["files"] as? [String])?.count == 1 && (json["bytes"] as? Int ?? 0) > 1000)
    }

    @Test func splitWritesAnIndexAndAPagePerDocument() throws {
        let (workspace, _) = try noteRewritten()
        try workspace.ok(["note", "noi-amandoi-avem-acelasi-dascal.1", "alt document"])
        let directory = workspace.path("pages")
        let result = try workspace.run(["report", directory, "--split"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Wrote 3 pages in \(directory): 3 changes in 2 documents, "))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(names == ["document-1.html", "document-2.html", "index.html"])
    }

    @Test(arguments: [
        (["report"], "missing"),
        (["report", "a.html", "--since", "2026-11-02", "--until", "2026-11-01"], "--until must be later than --since"),
        (["report", "a.html", "--as-of", "yesterday"], "--as-of takes an ISO 8601 time"),
    ])
    func usageErrorsExit64(arguments: [String], says: String) throws {
        let workspace = try CLIWorkspace()
        let result = try workspace.run(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(says), "\(result.stderr)")
        #expect(result.stderr.contains("See 'marginalia report --help'"))
    }

    @Test func aDeviceTheStoreDoesNotKnowIsAnError() throws {
        let (workspace, _) = try noteRewritten()
        let result = try workspace.run(["report", workspace.path("a.html"), "--device", "nobody"])
        #expect(result.status != 0 && result.stderr.hasPrefix("Error: "))
        #expect(!FileManager.default.fileExists(atPath: workspace.path("a.html")))
    }

    @Test(.enabled(if: hasSQLiteShell)) func aRewrittenLogIsReportedFailedInThePage() throws {
        let (workspace, _) = try noteRewritten()
        let rewrite = try workspace.sqlite(workspace.store, """
            BEGIN;
            DROP TRIGGER changes_refuse_update;
            UPDATE changes SET fields = json_object('note', 'I never wrote this') WHERE seq = 2;
            \(AuditCLITests.triggers.components(separatedBy: "CREATE TRIGGER changes_refuse_delete")[0])
            COMMIT;
            """)
        #expect(rewrite.status == 0, "\(rewrite.stderr)")
        let path = workspace.path("audit.html")
        // Written, showing the damage, and exit 1 as verify's.
        let result = try workspace.run(["report", path])
        #expect(result.status == 1, "\(result.stderr)")
        let verify = try workspace.run(["verify"])
        let problems = verify.stdout.split(separator: "\n").filter { $0.hasPrefix("problem: ") }.count
        #expect(verify.status == 1 && problems > 0)
        #expect(result.stderr.hasSuffix("; verification FAILED, as the report shows\n"
            + "Error: verification found \(problems) problem\(problems == 1 ? "" : "s")\n"), "\(result.stderr)")
        let html = try String(contentsOfFile: path, encoding: .utf8)
        #expect(html.contains("data-ok=\"false\"><strong>FAILED</strong>"))
        #expect(html.contains("the hash chain breaks at seq 2"))
    }
}
