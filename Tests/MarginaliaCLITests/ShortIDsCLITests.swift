import Foundation
import Testing

/// The short ids the built binary prints for ids made one right after another (version 7 ids, which share their
/// first 8 characters) are each the shortest that names its id, and each is taken back to that id.
@Suite struct ShortIDsCLITests {
    /// The first word of each line of `text` that does not start with a space.
    static func firstWords(_ text: String) -> [String] {
        text.split(separator: "\n").filter { !$0.hasPrefix(" ") }.compactMap { $0.split(separator: " ").first }
            .map(String.init)
    }

    /// The word after each `marker` in `text` (`change `, `device `, `annotation `, `- highlight `).
    static func words(after marker: String, in text: String) -> [String] {
        text.components(separatedBy: marker).dropFirst().map { String($0.prefix { $0 != " " && $0 != ")" }) }
    }

    @Test func theShortIdsPrintedForIdsMadeTogetherNameTheirAnnotationsChangesAndDevice() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["init"])
        for index in 1...4 { try workspace.ok(["highlight", "mai-am-un-singur-dor.\(index)"]) }
        let note = try workspace.ok(["note", "mai-am-un-singur-dor.2", "--quote", "serii", "prima"])
        try workspace.ok(["edit", note, "--note", "a doua"])
        let ids = try workspace.annotationIDs()
        #expect(ids.count == 5)

        // list: one short id per annotation, in the order of list --json, each the shortest that names it.
        let listed = try #require(try workspace.run(["list", "--json"]).json() as? [[String: Any]])
            .compactMap { $0["id"] as? String }
        let shorts = Self.firstWords(try workspace.ok(["list"]))
        #expect(shorts == listed.map { expectedShortID($0, among: ids) })
        // Made within a second, they share their first 8 characters, so most are longer (all but one made across
        // a 65.536-second boundary).
        #expect(shorts.filter { $0.count > 8 }.count >= 4, "\(shorts)")
        for (short, id) in zip(shorts, listed) {
            #expect(short.count >= 8 && id.hasPrefix(short))
            let shown = try #require(try workspace.run(["show", short, "--json"]).json() as? [String: Any])
            #expect(shown["id"] as? String == id, "\(short)")
            #expect(try workspace.ok(["show", short.uppercased()]).hasPrefix("id:          \(id)\n"))
            try workspace.ok(["edit", short, "--tag", "t\(short.count)"])
            let edited = try #require(try workspace.run(["show", id, "--json"]).json() as? [String: Any])
            #expect((edited["tags"] as? [String])?.contains("t\(short.count)") == true, "\(short)")
        }

        // read, diff and log print the same short annotation ids.
        let read = try workspace.ok(["read", "mai-am-un-singur-dor.1..mai-am-un-singur-dor.4"])
        let marked = Self.words(after: "- highlight ", in: read) + Self.words(after: "- note ", in: read)
        #expect(Set(marked) == Set(shorts))
        #expect(Set(Self.firstWords(try workspace.ok(["diff", "--since", "2000-01-01"]))) == Set(shorts))
        let log = try workspace.ok(["log"])
        #expect(Set(Self.words(after: " annotation ", in: log)) == Set(shorts))

        // history: each change's short id is the shortest among the log's, and revert takes it back to it.
        let (changes, devices) = try workspace.changeAndDeviceIDs()
        let history = try workspace.ok(["history", note])
        let full = try #require(try workspace.run(["history", note, "--json"]).json() as? [[String: Any]])
            .compactMap { $0["changeId"] as? String }
        let shortChanges = Self.words(after: " change ", in: history)
        #expect(full.count == 3 && shortChanges == full.map { expectedShortID($0, among: changes) })
        #expect(shortChanges.contains { $0.count > 8 }, "\(shortChanges)")
        let reverted = try #require(try workspace.run(["revert", note, "--to", shortChanges[0], "--json"]).json()
            as? [String: Any])
        let fields = (reverted["change"] as? [String: Any])?["fields"] as? [String: Any]
        #expect(fields?["revertTo"] as? String == full[0])
        #expect((reverted["annotation"] as? [String: Any])?["note"] as? String == "prima")
        let afterRevert = try workspace.changeAndDeviceIDs().changes
        let reverts = Self.words(after: "revert to ", in: try workspace.ok(["history", note]))
        #expect(reverts == [expectedShortID(full[0], among: afterRevert)])

        // The device id history prints names this store's device in log --device.
        let device = try #require(Set(Self.words(after: "(device ", in: history)).first)
        #expect(devices.count == 1 && device == expectedShortID(devices[0], among: devices))
        let byDevice = try #require(try workspace.run(["log", "--device", device, "--json"]).json() as? [[String: Any]])
        #expect(byDevice.compactMap { $0["changeId"] as? String } == afterRevert)
    }

    @Test func randomIdsOfAnOlderArchiveAmongVersion7OnesPrintAndResolve() throws {
        let workspace = try CLIWorkspace()
        for index in 1...3 { try workspace.ok(["highlight", "mai-am-un-singur-dor.\(index)"]) }
        let archive = CLIWorkspace.samples.deletingLastPathComponent()
            .appendingPathComponent("Tests/Fixtures/schema-1/archive-format1.jsonl.gz").path
        try workspace.ok(["import", archive])
        let ids = try workspace.annotationIDs()
        #expect(ids.count > 3)
        let listed = try #require(try workspace.run(["list", "--json", "--deleted"]).json() as? [[String: Any]])
            .compactMap { $0["id"] as? String }
        let shorts = Self.firstWords(try workspace.ok(["list", "--deleted"]))
        #expect(shorts == listed.map { expectedShortID($0, among: ids) })
        #expect(shorts.contains { $0.count == 8 } && shorts.contains { $0.count > 8 }, "\(shorts)")
        for (short, id) in zip(shorts, listed) {
            let shown = try #require(try workspace.run(["show", short, "--json"]).json() as? [String: Any])
            #expect(shown["id"] as? String == id, "\(short)")
        }
    }
}
