import Foundation
import Testing

/// The promises a store of irreplaceable data makes, checked through the binary as a user would.
@Suite struct SafetyTests {
    @Test(.enabled(if: hasSQLiteShell)) func theChangeLogRefusesUpdateAndDeleteFromTheStockShell() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["highlight", "mai-am-un-singur-dor.1"])
        let update = try workspace.sqlite(workspace.store, "UPDATE changes SET op = 'edit';")
        #expect(update.status != 0)
        #expect(update.stderr.contains("changes is append-only: a change cannot be updated"))
        let delete = try workspace.sqlite(workspace.store, "DELETE FROM changes;")
        #expect(delete.status != 0)
        #expect(delete.stderr.contains("changes is append-only: a change cannot be deleted"))
        #expect(try workspace.sqlite(workspace.store, "SELECT count(*) FROM changes;").stdout == "1\n")
    }

    @Test(.enabled(if: hasSQLiteShell)) func swappingTheContentLeavesTheStoreDumpByteIdentical() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["highlight", "mai-am-un-singur-dor.3", "--quote", "lăsaţi", "--note", "n"])
        try workspace.ok(["position", "mai-am-un-singur-dor", "mai-am-un-singur-dor.2"])
        let before = try workspace.sqlite(workspace.store, ".dump").stdout
        let edition2 = workspace.path("content-2.db")
        try workspace.ok(["content", "build", CLIWorkspace.samples.appendingPathComponent("tiny-2.json").path,
                          "-o", edition2])
        for command in [["list"], ["anchors"], ["search", "serii"], ["content", "info"], ["show", "--help"]] {
            _ = try workspace.run(command, environment: ["MARGINALIA_CONTENT": edition2])
        }
        #expect(try workspace.sqlite(workspace.store, ".dump").stdout == before)
    }

    @Test func aMissingContentPathFailsClearlyAndCreatesNothing() throws {
        let workspace = try CLIWorkspace()
        let missing = workspace.path("nowhere/content.db")
        let highlight = try workspace.run(["--content", missing, "highlight", "mai-am-un-singur-dor.1"])
        #expect(highlight.status == 1)
        #expect(highlight.stderr == "Error: content file \(missing) does not exist\n")
        #expect(!FileManager.default.fileExists(atPath: missing))
        #expect(!FileManager.default.fileExists(atPath: workspace.path("nowhere")))
        // The store itself stays usable: listing works, with a warning.
        try workspace.ok(["highlight", "mai-am-un-singur-dor.1", "--note", "kept"])
        let list = try workspace.run(["--content", missing, "list", "--json"])
        #expect(list.status == 0)
        #expect(list.stderr.hasPrefix("warning: content file \(missing) does not exist"))
        #expect((try list.json() as? [[String: Any]])?.first?["note"] as? String == "kept")
        #expect(!FileManager.default.fileExists(atPath: missing))
        // A file that is not content is named as such.
        let text = workspace.path("notes.txt")
        try Data("plain text".utf8).write(to: URL(fileURLWithPath: text))
        let wrong = try workspace.run(["--content", text, "search", "dor"])
        #expect(wrong.status == 1)
        #expect(wrong.stderr == "Error: \(text) is not a Marginalia content database: it is not an SQLite database\n")
    }

    @Test(.enabled(if: hasSQLiteShell)) func aStoreFromANewerVersionIsRefusedAndItsBytesKept() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["highlight", "mai-am-un-singur-dor.1"])
        #expect(try workspace.sqlite(workspace.store, "PRAGMA user_version = 11;").status == 0)
        let before = try workspace.bytes(workspace.store)
        for command in [["list"], ["highlight", "mai-am-un-singur-dor.2"], ["verify"],
                        ["export", workspace.path("x.gz")], ["import", workspace.path("x.gz")]] {
            let result = try workspace.run(command)
            #expect(result.status == 65, "\(command)")
            #expect(result.stderr.contains(
                "was created by a newer version of marginalia (store schema 11; this version reads up to 10)"))
        }
        #expect(try workspace.bytes(workspace.store) == before)
        #expect(!FileManager.default.fileExists(atPath: workspace.path("x.gz")))
    }

    @Test(.enabled(if: hasSQLiteShell)) func verifyPassesOnAHealthyStoreAndFailsOnARowEditedBehindTheLog() throws {
        let workspace = try CLIWorkspace()
        let id = try workspace.ok(["note", "mai-am-un-singur-dor.2", "original"])
        let healthy = try workspace.run(["verify"])
        #expect(healthy.status == 0)
        let head = try workspace.sqlite(workspace.store, "SELECT digest FROM changes WHERE seq = 1;").stdout
        #expect(healthy.stdout == "ok: 1 change replays to 1 annotation and 0 reading positions\n"
            + "hash chain holds: head seq 1, digest \(head)")
        #expect(try workspace.sqlite(workspace.store, "UPDATE annotations SET note = 'forged';").status == 0)
        let tampered = try workspace.run(["verify"])
        #expect(tampered.status == 1)
        #expect(tampered.stdout == """
            problem: annotations: row \(id) differs from the replay of its 1 changes
            FAILED: 1 problem

            """)
    }

    @Test func aDamagedArchiveIsRefusedWithExit65AndTheStoreUnchanged() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["highlight", "mai-am-un-singur-dor.1"])
        let archive = workspace.path("a.jsonl.gz")
        try workspace.ok(["export", archive])
        let other = try CLIWorkspace()
        try other.ok(["note", "mai-am-un-singur-dor.2", "mine"])
        let before = try other.bytes(other.store)
        let bytes = try workspace.bytes(archive)
        let truncated = other.path("truncated.jsonl.gz")
        try bytes.prefix(bytes.count - 3).write(to: URL(fileURLWithPath: truncated))
        let result = try other.run(["import", truncated])
        #expect(result.status == 65)
        #expect(result.stderr
            == "Error: \(truncated): truncated: the file ends before the end of the compressed stream\n")
        let plain = other.path("plain.jsonl")
        try Data("{\"type\":\"header\"}\n".utf8).write(to: URL(fileURLWithPath: plain))
        let uncompressed = try other.run(["import", plain])
        #expect(uncompressed.status == 65)
        #expect(uncompressed.stderr == "Error: \(plain): uncompressed JSON: archives are gzip-compressed\n")
        let ownStore = try other.run(["import", other.store])
        #expect(ownStore.status == 65)
        #expect(ownStore.stderr == "Error: \(other.store): this is an SQLite database, not an archive\n")
        #expect(try other.bytes(other.store) == before)
    }

    @Test func aFailedFirstCommandLeavesNoStoreBehind() throws {
        let workspace = try CLIWorkspace()
        let bad = try workspace.run(["highlight", "no-such.1"])
        #expect(bad.status == 65)
        #expect(bad.stderr == "Error: no passage no-such.1 in the attached content\n")
        let damaged = workspace.path("damaged.jsonl.gz")
        try Data([0x1F, 0x8B, 0x08, 0x00]).write(to: URL(fileURLWithPath: damaged))
        #expect(try workspace.run(["import", damaged]).status == 65)
        for suffix in ["", "-wal", "-shm"] {
            #expect(!FileManager.default.fileExists(atPath: workspace.store + suffix))
        }
        // A store that existed before is kept, of course.
        try workspace.ok(["init"])
        #expect(try workspace.run(["highlight", "no-such.1"]).status == 65)
        #expect(FileManager.default.fileExists(atPath: workspace.store))
    }

    @Test func contentBuildRefusesBadSourcesNamingTheField() throws {
        let workspace = try CLIWorkspace(sample: nil)
        let source = workspace.path("bad.json")
        try Data(#"""
            {"edition": "e", "language": "ro", "title": "T", "documents": [{"id": "d", "title": "D", \#
            "passages": [{"id": "d.1", "text": "a"}, {"id": "d.1", "text": "b"}]}]}
            """#.utf8)
            .write(to: URL(fileURLWithPath: source))
        let output = workspace.path("out.db")
        let result = try workspace.run(["content", "build", source, "--output", output])
        #expect(result.status == 65)
        #expect(result.stderr == "Error: \(source): documents[0] (id \"d\"): passages[1] (id \"d.1\"): "
            + "duplicate passage id \"d.1\" (also in document \"d\")\n")
        #expect(!FileManager.default.fileExists(atPath: output))
        let missingOutput = try workspace.run(["content", "build", source])
        #expect(missingOutput.status == 64)
    }
}
