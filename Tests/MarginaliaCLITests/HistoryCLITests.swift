import Foundation
import Marginalia
import Testing

/// `list/show/search --as-of`, `diff`, `revert` and `history` with previous values, run through the built binary on
/// stores whose changes were made at known times.
@Suite struct HistoryCLITests {
    /// A wall clock the test moves, two hours in the past of the real one so that later writes by the tool (on the
    /// real clock) come after every change made on it.
    final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var milliseconds = (Int64(Date().timeIntervalSince1970) - 7200) * 1000

        var now: Int64 { lock.withLock { milliseconds } }
        var function: @Sendable () -> Int64 { { [self] in now } }

        /// Moves on a minute and returns the new time.
        @discardableResult
        func minute() -> Int64 { lock.withLock { milliseconds += 60_000; return milliseconds } }
    }

    static func iso(_ milliseconds: Int64) -> String { Timestamp.iso8601(milliseconds: milliseconds) }

    /// Opens the workspace's store on `clock`, with its content attached.
    static func open(_ workspace: CLIWorkspace, clock: Clock, store: String? = nil) throws -> AnnotationStore {
        let opened = try AnnotationStore.open(path: store ?? workspace.store, access: .create, wallClock: clock.function)
        try opened.attachContent(path: workspace.content)
        return opened
    }

    /// Three annotations, edited; returns their ids and the time after the last change.
    static func firstRound(_ store: AnnotationStore, clock: Clock) throws -> (ids: [String], time: Int64) {
        clock.minute()
        let dor = try store.createAnnotation(
            .note, at: AnchorRequest(passage: "mai-am-un-singur-dor.1", quote: "dor"), note: "prima", tags: ["dor"])
        clock.minute()
        let serii = try store.createAnnotation(
            .highlight, at: AnchorRequest(passage: "mai-am-un-singur-dor.2", quote: "serii"), color: "yellow")
        clock.minute()
        let dascal = try store.createAnnotation(
            .note, at: AnchorRequest(passage: "noi-amandoi-avem-acelasi-dascal.2", quote: "valma"), note: "valma")
        clock.minute()
        try store.editAnnotation(id: dor.id, note: "a doua", color: "blue")
        return ([dor.id, serii.id, dascal.id], clock.minute())
    }

    /// What `list`, `show` and `search --notes` print, with or without `--as-of`. The short ids `list` prints
    /// are written out whole (those of `ids`): a short id is as long as the store holds ids now that start like
    /// it, so an annotation made later than `--as-of` may lengthen it.
    static func views(_ workspace: CLIWorkspace, ids: [String], asOf: [String] = []) throws -> [String] {
        let list = try workspace.ok(["list"] + asOf).split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in
                let short = line.prefix { $0 != " " }
                let named = ids.filter { short.count >= 8 && $0.hasPrefix(short) }
                return named.count == 1 ? named[0] + line.dropFirst(short.count) : String(line)
            }.joined(separator: "\n")
        return try [
            workspace.ok(["list", "--json", "--deleted"] + asOf),
            list,
            workspace.ok(["list", "--tag", "dor", "--json"] + asOf),
            workspace.ok(["search", "--notes", "doua OR valma", "--json"] + asOf),
        ] + ids.map { try workspace.ok(["show", $0, "--json"] + asOf) }
    }

    @Test func asOfShowsTheStoreAsItWasThen() throws {
        let workspace = try CLIWorkspace()
        let clock = Clock()
        var store = try Self.open(workspace, clock: clock)
        let (ids, then) = try Self.firstRound(store, clock: clock)
        try store.close()
        // The store as it was at `then`, copied file and all, and what the tool showed of it then.
        let copy = workspace.path("then.db")
        try FileManager.default.copyItem(atPath: workspace.store, toPath: copy)
        let snapshot = try Self.views(workspace, ids: ids)
        // More changes: on the test's clock, then by the tool on the real one.
        store = try Self.open(workspace, clock: clock)
        clock.minute()
        try store.editAnnotation(id: ids[0], note: "a treia", addTags: ["moarte"], removeTags: ["dor"])
        clock.minute()
        try store.deleteAnnotation(id: ids[2])
        clock.minute()
        try store.createAnnotation(.bookmark, at: AnchorRequest(passage: "mai-am-un-singur-dor.3"), note: "semn")
        try store.close()
        try workspace.ok(["edit", ids[1], "--color", "green", "--note", "a doua"])
        #expect(try Self.views(workspace, ids: ids) != snapshot)
        #expect(try Self.views(workspace, ids: ids, asOf: ["--as-of", Self.iso(then)]) == snapshot)
        #expect(try Self.views(workspace, ids: ids, asOf: ["--as-of=\(Self.iso(then))"]) == snapshot)
        let copied = try CLIWorkspace(sample: nil)
        copied.content = workspace.content
        try FileManager.default.copyItem(atPath: copy, toPath: copied.store)
        #expect(try Self.views(copied, ids: ids) == snapshot)
        // Before the first note, the list is empty and the note did not exist yet.
        let before = Self.iso(then - 5 * 60_000)
        #expect(try workspace.run(["list", "--json", "--as-of", before]).stdout == "[]\n")
        let missing = try workspace.run(["show", ids[0], "--as-of", before])
        #expect(missing.status == 1 && missing.stdout.isEmpty)
        #expect(missing.stderr == "Error: annotation \(ids[0]) did not exist yet at \(before)\n")
        // The short id list prints names the annotation at any time.
        let short = try #require(try workspace.ok(["list"]).split(separator: "\n")
            .compactMap { $0.split(separator: " ").first.map(String.init) }.first { ids[0].hasPrefix($0) })
        #expect(short == expectedShortID(ids[0], among: try workspace.annotationIDs()))
        let note = try workspace.ok(["show", short, "--as-of", Self.iso(then - 60_000)])
        #expect(note.contains("note:        a doua") && !note.contains("a treia"))
        let first = try workspace.ok(["show", short, "--as-of", Self.iso(then - 4 * 60_000)])
        #expect(first.contains("note:        prima"))
    }

    @Test func asOfRefusesWhatItCannotRead() throws {
        let workspace = try CLIWorkspace()
        try workspace.ok(["init"])
        let fingerprint = try workspace.bytes(workspace.store)
        for arguments in [["list", "--as-of", "yesterday"], ["show", "abcd", "--as-of", "2026-13-01"],
                          ["search", "dor", "--as-of", "2026-11-01"], ["diff"],
                          ["diff", "--since", "2026-11-02", "--until", "2026-11-01"], ["revert", "abcd"]] {
            let result = try workspace.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stdout.isEmpty && result.stderr.hasPrefix("Error: "), "\(arguments)")
        }
        #expect(try workspace.run(["list", "--as-of", "yesterday"]).stderr.hasPrefix(
            "Error: --as-of takes an ISO 8601 time such as 2026-11-29, 2026-11-29T12:00:00Z or a local time with its "
                + "offset, 2026-11-29T14:00+02:00; not 'yesterday'"))
        #expect(try workspace.bytes(workspace.store) == fingerprint)
    }

    @Test func diffNamesExactlyWhatChangedBetweenTwoTimes() throws {
        let workspace = try CLIWorkspace()
        let clock = Clock()
        let store = try Self.open(workspace, clock: clock)
        let (ids, since) = try Self.firstRound(store, clock: clock)
        try store.editAnnotation(id: ids[0], note: "a treia", addTags: ["moarte"], removeTags: ["dor"])
        clock.minute()
        try store.deleteAnnotation(id: ids[2])
        clock.minute()
        let bookmark = try store.createAnnotation(.bookmark, at: AnchorRequest(passage: "mai-am-un-singur-dor.3"),
                                                  note: "semn")
        let until = clock.minute()
        try store.editAnnotation(id: ids[1], color: "green")
        try store.close()
        let json = try #require(try workspace.run(
            ["diff", "--since", Self.iso(since), "--until", Self.iso(until), "--json"]).json() as? [String: Any])
        #expect(json["since"] as? String == Self.iso(since) && json["until"] as? String == Self.iso(until))
        let diffs = try #require(json["annotations"] as? [[String: Any]])
        #expect(diffs.map { $0["id"] as? String } == [ids[0], ids[2], bookmark.id])
        #expect(diffs.map { $0["events"] as? [String] } == [["edited"], ["deleted"], ["created"]])
        let fields = try #require(diffs[0]["fields"] as? [[String: Any]])
        #expect(fields.map { $0["field"] as? String } == ["note", "tags"])
        #expect(fields[0]["before"] as? String == "a doua" && fields[0]["after"] as? String == "a treia")
        #expect(fields[1]["before"] as? [String] == ["dor"] && fields[1]["after"] as? [String] == ["moarte"])
        #expect((diffs[1]["before"] as? [String: Any])?["deleted"] as? Bool == false)
        #expect((diffs[1]["after"] as? [String: Any])?["deleted"] as? Bool == true)
        #expect(diffs[2]["before"] is NSNull)
        let text = try workspace.ok(["diff", "--since", Self.iso(since), "--until", Self.iso(until)])
        let all = try workspace.annotationIDs()
        let short = { (id: String) in expectedShortID(id, among: all) }
        #expect(text.split(separator: "\n").map(String.init) == [
            "\(short(ids[0]))  edited            note mai-am-un-singur-dor.1:17-20  “dor”",
            "          note: «a doua» → «a treia»",
            "          tags: dor → moarte",
            "\(short(ids[2]))  deleted           note noi-amandoi-avem-acelasi-dascal.2:34-39  “valma”",
            "          deleted: no → yes",
            "\(short(bookmark.id))  created           bookmark mai-am-un-singur-dor.3:0-0",
            "          kind: bookmark",
            "          anchor: mai-am-un-singur-dor.3:0-0 (edition tiny-1)",
            "          title: «semn»",
        ])
        // Without --until: up to now, so the color set after `until` is in.
        let toNow = try #require(try workspace.run(["diff", "--since", Self.iso(since), "--json"]).json()
            as? [String: Any])
        #expect((toNow["annotations"] as? [[String: Any]])?.count == 4 && toNow["until"] is NSNull)
        let empty = try workspace.run(["diff", "--since", Self.iso(clock.minute())])
        #expect(empty.status == 0 && empty.stdout.isEmpty && empty.stderr == "No annotation changed\n")
    }

    /// The short change ids `history` prints, in its order.
    static func changeIDs(_ history: String) -> [String] {
        history.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix(" "), let range = line.range(of: " change ") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != " " })
        }
    }

    @Test func revertRestoresTheFieldsInOneMoreChangeThatMerges() throws {
        let workspace = try CLIWorkspace()
        let clock = Clock()
        let store = try Self.open(workspace, clock: clock)
        let (ids, _) = try Self.firstRound(store, clock: clock)
        try store.close()
        let id = ids[0]
        try workspace.ok(["edit", id, "--note", "a treia", "--untag", "dor", "--color", ""])
        try workspace.ok(["delete", id])
        let other = try workspace.newStore("other.db")
        try workspace.ok(["export", workspace.path("before.jsonl.gz")])
        try workspace.ok(["import", workspace.path("before.jsonl.gz"), "--store", other])
        let history = try workspace.ok(["history", id])
        let changes = Self.changeIDs(history)
        #expect(changes.count == 4)
        let made = try workspace.changeAndDeviceIDs().changes
        let full = try #require(try workspace.run(["history", id, "--json"]).json() as? [[String: Any]])
        #expect(changes == full.compactMap { $0["changeId"] as? String }.map { expectedShortID($0, among: made) })
        let count = try workspace.run(["log", "--json"]).json() as? [Any]
        let shortID = expectedShortID(id, among: try workspace.annotationIDs())
        let reverted = try workspace.run(["revert", shortID, "--to", changes[1]])
        #expect(reverted.status == 0 && reverted.stdout.isEmpty)
        let after = try #require(try workspace.run(["show", id, "--json"]).json() as? [String: Any])
        #expect(after["note"] as? String == "a doua" && after["color"] as? String == "blue")
        #expect(after["tags"] as? [String] == ["dor"] && after["deleted"] as? Bool == false)
        let log = try #require(try workspace.run(["log", "--json"]).json() as? [[String: Any]])
        #expect(log.count == (count?.count ?? 0) + 1)
        let written = try #require(log.last)
        #expect(written["op"] as? String == "edit" && written["entityId"] as? String == id)
        let fields = try #require(written["fields"] as? [String: Any])
        #expect((fields["revertTo"] as? String)?.hasPrefix(changes[1]) == true)
        #expect(fields["note"] as? String == "a doua" && fields["deleted"] as? Bool == false)
        let all = try workspace.changeAndDeviceIDs().changes
        let target = try #require(fields["revertTo"] as? String)
        #expect(reverted.stderr == "Reverted \(id) to change \(expectedShortID(target, among: all)) (new change "
            + "\(expectedShortID((written["changeId"] as? String) ?? "", among: all)))\n")
        // history shows the revert with what it replaced.
        let shown = try workspace.ok(["history", id]).split(separator: "\n").map(String.init)
        let start = try #require(shown.firstIndex { $0.contains("revert to \(changes[1])") })
        #expect(Array(shown[(start + 1)...]).contains("          note: «a treia» → «a doua»"))
        #expect(Array(shown[(start + 1)...]).contains("          deleted: yes → no"))
        #expect(try workspace.ok(["verify"]).hasPrefix("ok: 7 changes"))
        // Going back to the same change again writes nothing, and says so.
        let again = try workspace.run(["revert", id, "--to", changes[1]])
        #expect(again.status == 0 && again.stdout.isEmpty)
        #expect(again.stderr.hasPrefix("Nothing to change: annotation \(id) is already as it was right after change "))
        #expect(try workspace.ok(["verify"]).hasPrefix("ok: 7 changes"))
        // On the other store, which holds the state before the revert, it merges like any edit.
        try workspace.ok(["export", workspace.path("after.jsonl.gz")])
        try workspace.ok(["import", workspace.path("after.jsonl.gz"), "--store", other])
        #expect(try workspace.ok(["show", id, "--json", "--store", other]) == workspace.ok(["show", id, "--json"]))
        #expect(try workspace.ok(["verify", "--store", other]).hasPrefix("ok: 7 changes"))
        // A change that is not this annotation's, or too short an id: refused, nothing written.
        let bytes = try workspace.bytes(workspace.store)
        let foreign = Self.changeIDs(try workspace.ok(["history", ids[1]]))[0]
        let refused = try workspace.run(["revert", id, "--to", foreign])
        #expect(refused.status == 65 && refused.stdout.isEmpty)
        #expect(refused.stderr.hasPrefix("Error: change \(foreign)"))
        #expect(refused.stderr.hasSuffix(" is not a change of annotation \(id) (see 'history \(id)')\n"))
        #expect(try workspace.run(["revert", id, "--to", "ab"]).status == 65)
        #expect(try workspace.run(["revert", "ffffffff", "--to", foreign]).status == 1)
        #expect(try workspace.bytes(workspace.store) == bytes)
    }

    @Test func historyShowsPreviousValuesAndTheValueThatLostAMerge() throws {
        let workspace = try CLIWorkspace()
        let clock = Clock()
        let laptop = try Self.open(workspace, clock: clock)
        let made = try laptop.createAnnotation(
            .note, at: AnchorRequest(passage: "mai-am-un-singur-dor.1", quote: "dor"), note: "prima")
        let phonePath = try workspace.newStore("phone.db")
        let phone = try Self.open(workspace, clock: clock, store: phonePath)
        try laptop.exportArchive(toFile: workspace.path("made.jsonl.gz"))
        try phone.importArchive(path: workspace.path("made.jsonl.gz"))
        clock.minute()
        let fromLaptop = try laptop.editAnnotation(id: made.id, note: "de pe laptop")
        clock.minute()
        let fromPhone = try phone.editAnnotation(id: made.id, note: "de pe telefon")
        let laptopChange = try #require(try laptop.history(id: made.id).last)
        let phoneChange = try #require(try phone.history(id: made.id).last)
        try laptop.exportArchive(toFile: workspace.path("laptop.jsonl.gz"))
        try phone.importArchive(path: workspace.path("laptop.jsonl.gz"))
        try laptop.close()
        try phone.close()
        #expect(fromLaptop.updatedAt < fromPhone.updatedAt)
        let history = try workspace.ok(["history", made.id, "--store", phonePath]).split(separator: "\n")
            .map(String.init)
        #expect(history.count == 8)
        #expect(Array(history[1...3]) == [
            "          kind: note",
            "          anchor: mai-am-un-singur-dor.1:17-20 “dor” (edition tiny-1)",
            "          note: «prima»",
        ])
        let (changes, devices) = try workspace.changeAndDeviceIDs(["--store", phonePath])
        let short = { (id: String) in expectedShortID(id, among: changes) }
        #expect(history[4].hasSuffix(" edit      change \(short(phoneChange.changeID))  "
            + "(device \(expectedShortID(phoneChange.device, among: devices)))"))
        #expect(history[5] == "          note: «prima» → «de pe telefon»")
        #expect(history[6].hasSuffix(" edit      change \(short(laptopChange.changeID))  "
            + "(device \(expectedShortID(laptopChange.device, among: devices)))"))
        #expect(history[7] == "          note: «de pe laptop» lost to «de pe telefon» "
            + "(change \(short(phoneChange.changeID)), newer)")
        let json = try #require(try workspace.run(["history", made.id, "--json", "--store", phonePath]).json()
            as? [[String: Any]])
        #expect(json.map { $0["changeId"] as? String } == [
            try #require(json.first?["changeId"] as? String), phoneChange.changeID, laptopChange.changeID,
        ])
        let lost = try #require((json[2]["set"] as? [[String: Any]])?.first)
        #expect(lost["field"] as? String == "note" && lost["value"] as? String == "de pe laptop")
        #expect(lost["previous"] as? String == "de pe telefon" && lost["lost"] as? Bool == true)
        #expect(lost["keptBy"] as? String == phoneChange.changeID)
        let won = try #require((json[1]["set"] as? [[String: Any]])?.first)
        #expect(won["previous"] as? String == "prima" && won["lost"] as? Bool == false && won["keptBy"] == nil)
        // The value that lost is one revert away.
        let shown = try #require(Self.changeIDs(history.joined(separator: "\n")).last)
        try workspace.ok(["revert", made.id, "--to", shown, "--store", phonePath])
        #expect(try workspace.ok(["show", made.id, "--store", phonePath]).contains("note:        de pe laptop"))
    }
}
