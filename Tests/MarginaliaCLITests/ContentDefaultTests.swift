import Foundation
import Testing

/// The content a store was last re-anchored with is the default, and re-anchoring never goes backwards unasked.
@Suite struct ContentDefaultTests {
    /// A workspace with annotations made on `tiny-1` and re-anchored onto `tiny-2` (built beside it).
    func reconciledOnEdition2() throws -> (CLIWorkspace, edition2: String) {
        let workspace = try CLIWorkspace()
        let edition2 = workspace.path("content-2.db")
        try workspace.ok(["content", "build", CLIWorkspace.samples.appendingPathComponent("tiny-2.json").path,
                          "-o", edition2])
        try workspace.ok(["highlight", "mai-am-un-singur-dor.3", "--quote", "lăsaţi", "--note", "n"])
        try workspace.ok(["anchors", "--reanchor"], environment: ["MARGINALIA_CONTENT": edition2])
        return (workspace, edition2)
    }

    @Test func theFirstUseOfTheBundledSampleSaysItIsBuildingTheContent() throws {
        let workspace = try CLIWorkspace(sample: nil)
        let bundled = ["MARGINALIA_CONTENT": "", "MARGINALIA_SAMPLES": CLIWorkspace.samples.path]
        let first = try workspace.run(["highlight", "luceafarul.1"], environment: bundled)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("Building the bundled sample content (edition 1) for its first use"),
                "\(first.stderr)")
        let second = try workspace.run(["list"], environment: bundled)
        #expect(second.status == 0 && !second.stderr.contains("Building"), "\(second.stderr)")
    }

    @Test func withoutContentTheEditionLastReconciledWithIsUsed() throws {
        let (workspace, edition2) = try reconciledOnEdition2()
        let noContent = ["MARGINALIA_CONTENT": ""]
        let info = try JSONSerialization.jsonObject(
            with: Data(try workspace.ok(["content", "info", "--json"], environment: noContent).utf8)) as? [String: Any]
        #expect(info?["edition"] as? String == "tiny-2")
        #expect(info?["path"] as? String == edition2)
        #expect(info?["reconciledPath"] as? String == edition2)
        let list = try workspace.run(["list"], environment: noContent)
        #expect(list.status == 0)
        #expect(list.stderr == "")
        #expect(list.stdout.contains("“lăsați”"))
        // A second re-anchor onto the default writes nothing: it is the same edition.
        let again = try workspace.run(["anchors", "--reanchor"], environment: noContent)
        #expect(again.status == 0)
        #expect(again.stdout.hasPrefix("Edition tiny-2: 1 annotation — 1 intact"))
    }

    @Test(.enabled(if: hasSQLiteShell)) func reanchoringOntoAnOlderEditionIsRefusedAndLeavesTheStoreAsItWas() throws {
        let (workspace, _) = try reconciledOnEdition2()
        let before = try workspace.sqlite(workspace.store, ".dump").stdout
        let older = try workspace.run(["anchors", "--reanchor"])
        #expect(older.status == 65)
        #expect(older.stdout == "")
        #expect(older.stderr == "Error: the content is edition tiny-1, older than edition tiny-2 that the annotations "
            + "were reconciled with; re-anchoring would move them back (give edition tiny-2 or newer with --content, "
            + "or --allow-older to re-anchor anyway); nothing was written\n")
        #expect(try workspace.sqlite(workspace.store, ".dump").stdout == before)
        // Asked for, it is done.
        let allowed = try workspace.run(["anchors", "--reanchor", "--allow-older"])
        #expect(allowed.status == 0)
        #expect(allowed.stdout.contains("Re-anchored 1 annotation and confirmed 0 on edition tiny-1"))
    }

    @Test(.enabled(if: hasSQLiteShell)) func reanchoringOntoAnotherWorkIsRefused() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["bookmark", "mai-am-un-singur-dor.1"])
        let source = workspace.path("other.json")
        try Data("""
            {"edition": "other-1", "language": "en", "title": "Other",
             "documents": [{"id": "d", "title": "D", "passages": [{"id": "d.1", "text": "Nothing in common."}]}]}
            """.utf8).write(to: URL(fileURLWithPath: source))
        let other = workspace.path("other.db")
        try workspace.ok(["content", "build", source, "-o", other])
        let before = try workspace.sqlite(workspace.store, ".dump").stdout
        let refused = try workspace.run(["--content", other, "anchors", "--reanchor"])
        #expect(refused.status == 65)
        #expect(refused.stderr == "Error: the content (edition other-1) has none of the passages of the annotations "
            + "(anchored on edition tiny-1): it is another work (give the right content with --content, or "
            + "--allow-older to re-anchor anyway); nothing was written\n")
        #expect(try workspace.sqlite(workspace.store, ".dump").stdout == before)
    }

    @Test func aRecordedContentThatIsGoneIsAnErrorNotAnotherEdition() throws {
        let (workspace, edition2) = try reconciledOnEdition2()
        try FileManager.default.removeItem(atPath: edition2)
        let noContent = ["MARGINALIA_CONTENT": ""]
        let message = "the content this store was last reconciled with (edition tiny-2, \(edition2)) is gone; "
            + "give that edition or a newer one with --content"
        let reanchor = try workspace.run(["anchors", "--reanchor"], environment: noContent)
        #expect(reanchor.status == 1)
        #expect(reanchor.stderr == "Error: \(message)\n")
        // A command that can go on without content says so and shows what the store holds.
        let list = try workspace.run(["list"], environment: noContent)
        #expect(list.status == 0)
        #expect(list.stderr == "warning: \(message); showing what the store holds\n")
    }

    @Test func aStoreWithAnnotationsOnOtherContentDoesNotDefaultToTheBundledSample() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["bookmark", "mai-am-un-singur-dor.1"])
        let reanchor = try workspace.run(["anchors", "--reanchor"], environment: ["MARGINALIA_CONTENT": ""])
        #expect(reanchor.status == 1)
        #expect(reanchor.stderr == "Error: the store's annotations are anchored on edition tiny-1, not on the bundled "
            + "sample; give that content with --content (or $MARGINALIA_CONTENT)\n")
    }

    @Test func aNewStoreUsesTheBundledSampleAndRemembersItByEdition() throws {
        let workspace = try CLIWorkspace(sample: nil)
        let noContent = ["MARGINALIA_CONTENT": ""]
        try workspace.ok(["highlight", "luceafarul.1", "--quote", "povesti"], environment: noContent)
        try workspace.ok(["anchors", "--reanchor"], environment: noContent)
        let info = try workspace.ok(["content", "info"], environment: noContent)
        #expect(info.contains("edition:   eminescu-2026.1"))
        #expect(info.hasSuffix("annotations last reconciled with edition eminescu-2026.1 (bundled sample)"))
    }

    @Test func annotationsMadeOnTheBundledEdition2DefaultToIt() throws {
        // Also checks that the tool's names of the bundled editions are the ones in the sample sources.
        let workspace = try CLIWorkspace(sample: "eminescu-2026.2.json")
        try workspace.ok(["bookmark", "luceafarul.1"])
        let noContent = ["MARGINALIA_CONTENT": ""]
        let info = try workspace.ok(["content", "info"], environment: noContent)
        #expect(info.contains("edition:   eminescu-2026.2"))
        #expect(info.contains("/cache/marginalia/eminescu-2026.2-"))
    }

    @Test(.enabled(if: hasSQLiteShell)) func contentThatContradictsItselfIsAnErrorNotACrash() throws {
        // A passage id twice in one document: what a content file overwritten during 'anchors --reanchor' can read
        // as. A valid content database cannot hold it (the id is its primary key), so it is made by hand.
        let workspace = try CLIWorkspace()
        try workspace.ok(["highlight", "mai-am-un-singur-dor.3", "--quote", "lăsaţi"])
        let broken = workspace.path("broken.db")
        let made = try workspace.sqlite(broken, """
            CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
            INSERT INTO meta VALUES ('edition', 'tiny-3');
            CREATE TABLE documents (id TEXT, title TEXT, ord INTEGER);
            INSERT INTO documents VALUES ('mai-am-un-singur-dor', 'Mai am un singur dor', 1);
            CREATE TABLE passages (id TEXT, document_id TEXT, ord INTEGER, text TEXT);
            INSERT INTO passages VALUES ('mai-am-un-singur-dor.3', 'mai-am-un-singur-dor', 1, 'Să mă lăsați să mor'),
                ('mai-am-un-singur-dor.3', 'mai-am-un-singur-dor', 2, 'Să mă lăsați să mor');
            PRAGMA application_id = 1297237827; PRAGMA user_version = 1;
            """)
        #expect(made.status == 0, "\(made.stderr)")
        let before = try workspace.sqlite(workspace.store, ".dump").stdout
        let result = try workspace.run(["--content", broken, "anchors", "--reanchor"])
        #expect(result.status == 65)
        #expect(result.stderr == "Error: \(broken) changed while it was being read, or is damaged (passage "
            + "mai-am-un-singur-dor.3 appears twice in document mai-am-un-singur-dor); nothing was written\n")
        #expect(try workspace.sqlite(workspace.store, ".dump").stdout == before)
    }
}
