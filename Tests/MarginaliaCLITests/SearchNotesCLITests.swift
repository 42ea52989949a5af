import Foundation
import MarginaliaTestSupport
import Testing

/// `search --notes` counts and pages like `search`, and its JSON has the same shape.
@Suite struct SearchNotesCLITests {
    @Test func notesSearchCountsPagesAndSpeaksJSONLikeSearch() throws {
        let workspace = try CLIWorkspace()
        for index in 0..<25 { try workspace.ok(["note", "mai-am-un-singur-dor.1", "un basm \(index)"]) }
        try workspace.ok(["note", "mai-am-un-singur-dor.2", "altceva"])
        let first = try workspace.run(["search", "--notes", "basm"])
        #expect(first.stdout.components(separatedBy: "un basm").count - 1 == 20, "\(first.stdout)")
        #expect(first.stderr == "1–20 of 25 annotations; --offset 20 shows more\n", "\(first.stderr)")
        let rest = try workspace.run(["search", "--notes", "basm", "--offset", "20"])
        #expect(rest.stdout.components(separatedBy: "un basm").count - 1 == 5)
        #expect(rest.stderr == "21–25 of 25 annotations\n", "\(rest.stderr)")
        let json = try #require(try workspace.run(["search", "--notes", "basm", "--json", "--limit", "3"]).json()
            as? [String: Any])
        #expect(json["total"] as? Int == 25 && json["offset"] as? Int == 0)
        #expect((json["hits"] as? [[String: Any]])?.count == 3)
        let none = try workspace.run(["search", "--notes", "nimic"])
        #expect(none.status == 0 && none.stdout.isEmpty && none.stderr == "No notes match\n")
    }
}
