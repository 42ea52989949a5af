import Foundation
import Testing

/// The short ids the tool prints are ids it takes; tag filters fold as search does.
@Suite struct IDsAndTagsCLITests {
    @Test func theShortDeviceAndAnnotationIdsShownAreAccepted() throws {
        let workspace = try CLIWorkspace()
        let device = try workspace.ok(["init"])
        let id = try workspace.ok(["highlight", "mai-am-un-singur-dor.1", "--color", "yellow"])
        let log = try workspace.ok(["log"])
        let shown = String(device.prefix(8))
        #expect(log.contains("(device \(shown))"))
        // The 8 characters shown, in upper case too, find the device's changes.
        for given in [shown, shown.uppercased(), String(device.prefix(4))] {
            let found = try workspace.run(["log", "--device", given, "--json"])
            #expect(found.status == 0, "\(given): \(found.stderr)")
            let changes = try #require(try found.json() as? [[String: Any]])
            #expect(changes.map { $0["entityId"] as? String } == [id])
        }
        #expect(try workspace.ok(["show", String(id.prefix(8)).uppercased(), "--json"]).contains(id))
        #expect(try workspace.ok(["history", String(id.prefix(5))]).contains("create"))

        let short = try workspace.run(["log", "--device", String(device.prefix(3))])
        #expect(short.status == 65 && short.stdout.isEmpty)
        #expect(short.stderr == "Error: '\(device.prefix(3))' is too short for a device id: give at least 4 "
            + "characters (the short ids shown have 8 or more)\n")
        let unknown = try workspace.run(["log", "--device", "zzzzzzzz"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no device zzzzzzzz in this store"))
        let tooShortID = try workspace.run(["delete", String(id.prefix(2))])
        #expect(tooShortID.status == 65 && tooShortID.stderr.contains("too short for an annotation id"))
    }

    @Test func aDeviceIsFoundByItsNameWhereverAnIdIsTaken() throws {
        let workspace = try CLIWorkspace()
        let device = try workspace.ok(["init"])
        try workspace.ok(["device", "name", "ab"])
        let id = try workspace.ok(["highlight", "mai-am-un-singur-dor.1"])
        // A name shorter than an id prefix may be, as `devices` lists it.
        #expect(try workspace.ok(["devices"]).contains("ab"))
        let byName = try #require(try workspace.run(["log", "--device", "ab", "--json"]).json() as? [[String: Any]])
        #expect(byName.compactMap { $0["entityId"] as? String }.contains(id))
        #expect(byName.allSatisfy { $0["device"] as? String == device })
        let unknown = try workspace.run(["log", "--device", "laptop"])
        #expect(unknown.status == 1 && unknown.stderr.contains("no device laptop in this store"))
    }

    @Test func listByTagIgnoresCaseAndDiacriticsAndShowsTheTagAsWritten() throws {
        let workspace = try CLIWorkspace()
        let cedilla = try workspace.ok(["highlight", "mai-am-un-singur-dor.1", "--tag", "ţară"])
        let comma = try workspace.ok(["highlight", "mai-am-un-singur-dor.3", "--tag", "Țară"])
        try workspace.ok(["highlight", "mai-am-un-singur-dor.4", "--tag", "tare"])
        let listed = try #require(try workspace.run(["list", "--tag", "tara", "--json"]).json() as? [[String: Any]])
        #expect(listed.map { $0["id"] as? String } == [cedilla, comma])
        #expect(listed.map { $0["tags"] as? [String] } == [["ţară"], ["Țară"]])
        let text = try workspace.ok(["list", "--tag", "TARA"])
        #expect(text.contains("tags: ţară") && text.contains("tags: Țară") && !text.contains("tare"))
        try workspace.ok(["edit", cedilla, "--untag", "tara"])
        #expect(try workspace.ok(["list", "--tag", "țară", "--json"]).contains(comma))
        #expect(!(try workspace.ok(["list", "--tag", "țară", "--json"]).contains(cedilla)))
    }
}
