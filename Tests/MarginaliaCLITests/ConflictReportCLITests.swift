import Foundation
import Testing

/// An import names each conflict it resolved: the annotation, the field, the value kept and the one that lost.
@Suite struct ConflictReportCLITests {
    @Test func anImportNamesTheAnnotationAndTheNoteThatLost() throws {
        let first = try CLIWorkspace()
        let id = try first.ok(["highlight", "mai-am-un-singur-dor.1"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let shared = first.path("shared.jsonl.gz")
        try first.ok(["export", shared])
        let second = try CLIWorkspace()
        try second.ok(["import", shared])
        // Both machines edit the note; the second machine's edit is the later one, so it wins everywhere.
        try first.ok(["edit", id, "--note", "pe primul"])
        try second.ok(["edit", id, "--note", "pe al doilea"])
        let edited = first.path("edited.jsonl.gz")
        try first.ok(["export", edited])

        let json = try #require(try second.run(["import", edited, "--dry-run", "--json"]).json() as? [String: Any])
        #expect(json["conflictsResolved"] as? Int == 1)
        let conflicts = try #require(json["conflicts"] as? [[String: Any]])
        #expect(conflicts.count == 1)
        #expect(conflicts.first?["id"] as? String == id && conflicts.first?["field"] as? String == "note")
        #expect(conflicts.first?["kept"] as? String == "pe al doilea")
        #expect(conflicts.first?["lost"] as? String == "pe primul")

        let text = try second.ok(["import", edited])
        #expect(text.contains("conflict: \(id) note: kept «pe al doilea», lost «pe primul»"), "\(text)")
        #expect(try second.ok(["show", id]).contains("pe al doilea"))
        // The note that lost stays in the history.
        #expect(try second.ok(["history", id]).contains("pe primul"))
    }
}
