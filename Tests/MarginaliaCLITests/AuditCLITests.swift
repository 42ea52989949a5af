import Foundation
import MarginaliaTestSupport
import Testing

/// `verify` against a rewritten log, `verify --json`'s head, `imports`, and where `log --json` says changes came from.
@Suite struct AuditCLITests {
    /// The two guards of the log, exactly as the schema creates them.
    static let triggers = """
        CREATE TRIGGER changes_refuse_update BEFORE UPDATE ON changes
        BEGIN
            SELECT RAISE(ABORT, 'changes is append-only: a change cannot be updated');
        END;
        CREATE TRIGGER changes_refuse_delete BEFORE DELETE ON changes
        BEGIN
            SELECT RAISE(ABORT, 'changes is append-only: a change cannot be deleted');
        END;
        """

    /// A note written, then overwritten twice (seq 1, 2, 3).
    func noteOverwrittenTwice() throws -> (CLIWorkspace, String) {
        let workspace = try CLIWorkspace()
        let id = try workspace.ok(["note", "mai-am-un-singur-dor.2", "prima"]).trimmingCharacters(in: .newlines)
        try workspace.ok(["edit", id, "--note", "a doua"])
        try workspace.ok(["edit", id, "--note", "a treia"])
        return (workspace, id)
    }

    func changeID(_ workspace: CLIWorkspace, seq: Int) throws -> String {
        try workspace.sqlite(workspace.store, "SELECT change_id FROM changes WHERE seq = \(seq);").stdout
            .trimmingCharacters(in: .newlines)
    }

    @Test(.enabled(if: hasSQLiteShell), arguments: [
        ("a rewritten superseded note", "UPDATE changes SET fields = json_object('note', 'I never wrote this') "
            + "WHERE seq = 2;", 2),
        ("a deleted superseded edit", "DELETE FROM changes WHERE seq = 2;", 3),
        ("a moved clock", "UPDATE changes SET hlc = (hlc / 100000 - 1) * 100000 WHERE seq = 2;", 2),
    ])
    func aRewriteWithTheTriggersPutBackFailsVerify(what: String, sql: String, brokenSeq: Int) throws {
        let (workspace, _) = try noteOverwrittenTwice()
        #expect(try workspace.run(["verify"]).status == 0)
        let expectedID = try changeID(workspace, seq: brokenSeq)
        let rewrite = try workspace.sqlite(workspace.store, """
            BEGIN;
            DROP TRIGGER changes_refuse_update;
            DROP TRIGGER changes_refuse_delete;
            \(sql)
            \(Self.triggers)
            COMMIT;
            """)
        #expect(rewrite.status == 0, "\(rewrite.stderr)")
        let result = try workspace.run(["verify"])
        #expect(result.status == 1, "\(what)")
        #expect(result.stdout == """
            problem: changes: the hash chain breaks at seq \(brokenSeq) (change \(expectedID)): its digest does not \
            follow from the changes before it; the log was rewritten there or before
            FAILED: 1 problem

            """, "\(what)")
        let json = try #require(try workspace.run(["--json", "verify"]).json() as? [String: Any])
        let broken = try #require(json["chainBreak"] as? [String: Any])
        #expect(broken["seq"] as? Int == brokenSeq && broken["changeId"] as? String == expectedID)
    }

    @Test(.enabled(if: hasSQLiteShell)) func verifyJSONShowsTheHead() throws {
        let (workspace, _) = try noteOverwrittenTwice()
        let digest = try workspace.sqlite(workspace.store, "SELECT digest FROM changes WHERE seq = 3;").stdout
            .trimmingCharacters(in: .newlines)
        #expect(digest.count == 64)
        let json = try #require(try workspace.run(["--json", "verify"]).json() as? [String: Any])
        let head = try #require(json["head"] as? [String: Any])
        #expect(head["seq"] as? Int == 3 && head["digest"] as? String == digest)
        #expect(json["chainBreak"] is NSNull)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sha256sum")))
    func importsListsTheFileItsSHA256AndTheLogSaysHowEachChangeArrived() throws {
        let (laptop, id) = try noteOverwrittenTwice()
        let archive = laptop.path("laptop.jsonl.gz")
        try laptop.ok(["export", archive])
        let phone = try CLIWorkspace()
        let own = try phone.ok(["highlight", "mai-am-un-singur-dor.1"]).trimmingCharacters(in: .newlines)
        #expect(try phone.ok(["imports"]) == "No change was received: every change was made here.")
        try phone.ok(["import", archive])
        let sha256 = try Self.sha256sum(archive)
        let receipts = try #require(try phone.run(["--json", "imports"]).json() as? [[String: Any]])
        #expect(receipts.count == 1)
        let receipt = try #require(receipts.first)
        #expect(receipt["receipt"] as? Int == 1 && receipt["kind"] as? String == "import")
        #expect(receipt["file"] as? String == archive && receipt["sha256"] as? String == sha256)
        #expect(receipt["size"] as? Int == (try laptop.bytes(archive)).count)
        #expect(receipt["newChanges"] as? Int == 3 && receipt["duplicates"] as? Int == 0)
        let entries = try #require(try phone.run(["--json", "log"]).json() as? [[String: Any]])
        #expect(entries.count == 4)
        for entry in entries {
            let entity = entry["entityId"] as? String
            if entity == own {
                #expect(entry["source"] as? String == "local")
                #expect(entry["receivedAt"] as? String == entry["time"] as? String)
            } else {
                #expect(entity == id)
                let source = try #require(entry["source"] as? [String: Any])
                #expect(source["receipt"] as? Int == 1 && source["sha256"] as? String == sha256)
                #expect(entry["receivedAt"] as? String == receipt["receivedAt"] as? String)
            }
        }
        let history = try #require(try phone.run(["--json", "history", id]).json() as? [[String: Any]])
        #expect(history.count == 3 && history.allSatisfy { ($0["source"] as? [String: Any])?["kind"] as? String
            == "import" })
        // Importing the same file again brings nothing and leaves no receipt.
        try phone.ok(["import", archive])
        #expect((try phone.run(["--json", "imports"]).json() as? [[String: Any]])?.count == 1)
        let text = try phone.ok(["imports"])
        #expect(text.hasPrefix("#1  ") && text.contains("  import  \(archive)  ") && text.contains("sha256 \(sha256)"))
    }

    static func sha256sum(_ path: String) throws -> String {
        String(try ChildProcess("/usr/bin/sha256sum", [path]).run().stdout.prefix(64))
    }
}
