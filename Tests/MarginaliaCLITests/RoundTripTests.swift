import Foundation
import Testing

/// A `{"passage", "offset"}` object as `passage:offset`.
func position(_ value: Any?) -> String? {
    guard let object = value as? [String: Any], let passage = object["passage"] as? String,
          let offset = object["offset"] as? Int, object.count == 2 else { return nil }
    return "\(passage):\(offset)"
}

@Suite struct RoundTripTests {
    @Test func aScriptedRoundTripThroughJSON() throws {
        let workspace = try CLIWorkspace()
        let initialized = try #require(try workspace.run(["init", "--json"]).json() as? [String: Any])
        #expect(initialized["created"] as? Bool == true)
        let device = try #require(initialized["deviceId"] as? String)

        let made = try #require(try workspace.run(
            ["highlight", "mai-am-un-singur-dor.3", "--quote", "lăsați", "--color", "yellow", "--tag", "dor",
             "--json"]
        ).json() as? [String: Any])
        let id = try #require(made["id"] as? String)
        #expect(made["kind"] as? String == "highlight")
        #expect(made["document"] as? String == "mai-am-un-singur-dor")
        #expect(made["quote"] as? String == "lăsaţi")  // found although typed with comma-below
        #expect(position(made["start"]) == "mai-am-un-singur-dor.3:6")
        #expect(position(made["end"]) == "mai-am-un-singur-dor.3:12")
        #expect(made["tags"] as? [String] == ["dor"])
        #expect(made["deleted"] as? Bool == false)
        #expect(made["edition"] as? String == "tiny-1")

        try workspace.ok(["edit", String(id.prefix(8)), "--note", "a wish", "--untag", "dor", "--tag", "moarte"])
        try workspace.ok(["delete", id])
        let listed = try #require(try workspace.run(["list", "--json"]).json() as? [Any])
        #expect(listed.isEmpty)
        let all = try #require(try workspace.run(["list", "--json", "--deleted"]).json() as? [[String: Any]])
        #expect(all.count == 1)
        #expect(all[0]["note"] as? String == "a wish")
        #expect(all[0]["tags"] as? [String] == ["moarte"])
        #expect(all[0]["deleted"] as? Bool == true)
        try workspace.ok(["undelete", id])

        let history = try #require(try workspace.run(["history", id, "--json"]).json() as? [[String: Any]])
        #expect(history.map { $0["op"] as? String } == ["create", "edit", "delete", "undelete"])
        #expect(history.allSatisfy { $0["device"] as? String == device && $0["entityId"] as? String == id })
        let edit = try #require(history[1]["fields"] as? [String: Any])
        #expect(edit.count == 2 && edit["note"] as? String == "a wish")
        #expect(edit["tags"] as? [String: Bool] == ["dor": false, "moarte": true])
        let hlcs = history.compactMap { $0["hlc"] as? String }
        #expect(hlcs == hlcs.sorted() && Set(hlcs).count == 4)

        try workspace.ok(["position", "mai-am-un-singur-dor", "mai-am-un-singur-dor.2:3"])
        #expect(try workspace.ok(["position", "mai-am-un-singur-dor"]) == "mai-am-un-singur-dor.2:3")
        let log = try #require(try workspace.run(["log", "--json", "--limit", "2"]).json() as? [[String: Any]])
        #expect(log.map { $0["op"] as? String } == ["undelete", "set"])
        #expect(log[1]["entity"] as? String == "position")
        let verify = try #require(try workspace.run(["verify", "--json"]).json() as? [String: Any])
        #expect(verify["ok"] as? Bool == true && verify["changes"] as? Int == 5)
    }

    @Test func searchIgnoresDiacriticsAndCountsAnnotations() throws {
        let workspace = try CLIWorkspace()
        // "liniş\u{AD}tea": cedilla and a soft hyphen inside the word; "lăsaţi" cedilla; "Școlari" comma-below.
        for (query, passage) in [("linistea", "mai-am-un-singur-dor.2"), ("LASATI", "mai-am-un-singur-dor.3"),
                                 ("scolari", "noi-amandoi-avem-acelasi-dascal.1"),
                                 ("şcolari", "noi-amandoi-avem-acelasi-dascal.1"),
                                 ("lasa*", "mai-am-un-singur-dor.3")] {
            // The passage holding the word as typed comes first; other forms of it may follow.
            let page = try #require(try workspace.run(["search", query, "--json"]).json() as? [String: Any])
            let hits = try #require(page["hits"] as? [[String: Any]])
            #expect(hits.first?["passage"] as? String == passage, "query \(query)")
        }
        try workspace.ok(["note", "mai-am-un-singur-dor.3", "o notă despre moarte"])
        let phrase = try #require(try workspace.run(["search", "\"sa ma lasati\"", "--json"]).json() as? [String: Any])
        #expect(phrase["total"] as? Int == 1)
        let hits = try #require(phrase["hits"] as? [[String: Any]])
        #expect(hits.count == 1)
        #expect(hits[0]["annotations"] as? Int == 1)
        #expect(hits[0]["snippet"] as? String == "[Să mă lăsaţi] să mor")
        let found = try #require(try workspace.run(["search", "--notes", "nota", "--json"]).json() as? [String: Any])
        let notes = try #require(found["hits"] as? [[String: Any]])
        #expect(notes.map { $0["note"] as? String } == ["o notă despre moarte"])
        #expect(found["total"] as? Int == 1 && found["offset"] as? Int == 0)
        let none = try workspace.run(["search", "nimic"])
        #expect(none.status == 0 && none.stdout.isEmpty && none.stderr == "No passages match\n")
    }

    @Test func anchorsAfterAnUpdateAccountForEveryAnnotation() throws {
        let workspace = try CLIWorkspace()
        let respelled = try workspace.ok(["highlight", "mai-am-un-singur-dor.3", "--quote", "lăsaţi"])
        let intact = try workspace.ok(["highlight", "mai-am-un-singur-dor.1"])
        let gone = try workspace.ok(["note", "noi-amandoi-avem-acelasi-dascal.2", "a note that must survive"])
        let edition2 = workspace.path("content-2.db")
        try workspace.ok(["content", "build", CLIWorkspace.samples.appendingPathComponent("tiny-2.json").path,
                          "-o", edition2])
        let environment = ["MARGINALIA_CONTENT": edition2]
        let listed = try workspace.run(["list"], environment: environment)
        #expect(listed.stderr.contains("note: the content is now edition tiny-2; annotations were anchored on tiny-1."))

        let report = try #require(
            try workspace.run(["anchors", "--json"], environment: environment).json() as? [String: Any])
        #expect(report["total"] as? Int == 3 && report["intact"] as? Int == 1)
        #expect(report["moved"] as? Int == 1 && report["orphaned"] as? Int == 1)
        let checks = try #require(report["annotations"] as? [[String: Any]])
        #expect(Set(checks.compactMap { $0["id"] as? String }) == [respelled, gone])
        let moved = try #require(checks.first { $0["status"] as? String == "moved" }?["movedTo"] as? [String: Any])
        #expect(moved["quote"] as? String == "lăsați")

        let first = try #require(
            try workspace.run(["anchors", "--reanchor", "--json"], environment: environment).json() as? [String: Any])
        let second = try #require(
            try workspace.run(["anchors", "--reanchor", "--json"], environment: environment).json() as? [String: Any])
        #expect(first["reanchored"] as? Int == 1 && second["reanchored"] as? Int == 0)
        #expect(first["confirmed"] as? Int == 1 && second["confirmed"] as? Int == 0)
        let confirmed = try #require(try workspace.run(["history", intact, "--json"]).json() as? [[String: Any]])
        #expect(confirmed.map { $0["op"] as? String } == ["create", "confirm"])
        let history = try #require(try workspace.run(["history", respelled, "--json"]).json() as? [[String: Any]])
        #expect(history.map { $0["op"] as? String } == ["create", "reanchor"])
        #expect((history[1]["fields"] as? [String: Any])?["edition"] as? String == "tiny-2")

        let orphans = try #require(try workspace.run(
            ["list", "--status", "orphaned", "--json"], environment: environment
        ).json() as? [[String: Any]])
        #expect(orphans.map { $0["note"] as? String } == ["a note that must survive"])
        try workspace.ok(["reattach", gone, "noi-amandoi-avem-acelasi-dascal.1", "--quote", "Școlari"],
                         environment: environment)
        let after = try #require(
            try workspace.run(["list", "--status", "orphaned", "--json"], environment: environment).json() as? [Any])
        #expect(after.isEmpty)
        let shown = try #require(
            try workspace.run(["show", intact, "--json"], environment: environment).json() as? [String: Any])
        #expect(shown["status"] as? String == "intact")
        let reattached = try #require(
            try workspace.run(["show", gone, "--json"], environment: environment).json() as? [String: Any])
        #expect(reattached["quote"] as? String == "Școlari"
            && reattached["note"] as? String == "a note that must survive")
    }
}
