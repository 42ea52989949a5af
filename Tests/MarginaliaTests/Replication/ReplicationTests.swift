import Foundation
import Testing
@testable import Marginalia

/// Changes read by cursor and merged from memory: the transport-agnostic core every sync builds on.
@Suite struct ReplicationTests {
    let source = makeSource([
        ("luceafarul", [
            ("luceafarul.1", "A fost odată ca-n poveşti,"),
            ("luceafarul.2", "A fost ca niciodată,"),
        ]),
    ])

    @Test func changesAfterACursorAreExactlyTheNewOnesInTheStoresOrder() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        #expect(try store.changes(after: nil).isEmpty)
        let first = try store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.1", start: 0, end: 6))
        let cursor = try store.cursor()
        try store.editAnnotation(id: first.id, note: "început")
        try store.setPosition(document: "luceafarul", at: TextPosition(passage: "luceafarul.2", offset: 3))
        let all = try store.changes(after: nil)
        #expect(all.map(\.operation) == [.create, .edit, .set])
        #expect(try store.changes(after: cursor).map(\.changeID) == all.dropFirst().map(\.changeID))
        #expect(try store.changes(after: try store.cursor()).isEmpty)

        // Pages of one walk the same log, and the last page's cursor is the store's.
        let page = try store.changePage(after: nil, limit: 2)
        #expect(page.changes.map(\.changeID) == all.prefix(2).map(\.changeID))
        let rest = try store.changePage(after: page.cursor, limit: 2)
        #expect(rest.changes.map(\.changeID) == [all[2].changeID])
        #expect(rest.cursor == (try store.cursor()))
        #expect(try store.changePage(after: rest.cursor, limit: 2).changes.isEmpty)
    }

    @Test func aCursorSurvivesJSONAndACursorOfAnotherLogReadsFromTheStart() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        try store.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.2"))
        let cursor = try store.cursor()
        let decoded = try JSONDecoder().decode(ChangeCursor.self, from: try JSONEncoder().encode(cursor))
        #expect(decoded == cursor)
        #expect(try store.changes(after: decoded).isEmpty)

        let other = try makeStore(directory, source: source, name: "other.db")
        try other.db.execute(sql: "UPDATE meta SET value = '2020-01-01T00:00:00.000Z' WHERE key = 'created_at'")
        try other.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.1"))
        #expect(try other.changes(after: cursor).count == 1)
    }

    @Test func mergingFromMemoryAddsOnceAndConverges() throws {
        let directory = try TemporaryDirectory()
        let laptop = try makeStore(directory, source: source, name: "laptop.db")
        let phone = try makeStore(directory, source: source, name: "phone.db")
        let made = try laptop.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.1"), note: "prima")
        try laptop.editAnnotation(id: made.id, note: "a doua", addTags: ["ţară"])
        try phone.createAnnotation(.bookmark, at: AnchorRequest(passage: "luceafarul.2"))

        let report = try phone.merge(try laptop.changes(after: nil))
        #expect(report.newChanges == 2 && report.duplicates == 0 && report.annotationsCreated == 1)
        let again = try phone.merge(try laptop.changes(after: nil))
        #expect(again.newChanges == 0 && again.duplicates == 2)
        try laptop.merge(try phone.changes(after: nil))
        #expect(try ArchiveFixtures.state(of: laptop) == ArchiveFixtures.state(of: phone))
        #expect(try phone.annotation(id: made.id).note == "a doua")
        #expect(try phone.verify().isHealthy)
    }

    @Test func aBadChangeRefusesTheWholeMergeAndNamesIt() throws {
        let directory = try TemporaryDirectory()
        let laptop = try makeStore(directory, source: source, name: "laptop.db")
        let phone = try makeStore(directory, source: source, name: "phone.db")
        try laptop.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.1"), note: "prima")
        var incoming = try laptop.changes(after: nil)
        var forged = incoming[0]
        forged.changeID = "not a valid id!"
        incoming.append(forged)
        let before = try canonicalDump(directory.path("phone.db"))
        #expect {
            try phone.merge(incoming)
        } throws: { error in
            "\(error)".hasPrefix("change 2 (not a valid id!): field \"changeId\": must be 1 to 64 letters")
        }
        #expect(try canonicalDump(directory.path("phone.db")) == before)

        var rewritten = incoming[0]
        rewritten.fields.note = "altceva"
        try phone.merge([incoming[0]])
        #expect {
            try phone.merge([rewritten])
        } throws: { error in
            "\(error)" == "change 1: change \(rewritten.changeID) differs from the change with the same id already "
                + "in the store"
        }
    }

    @Test func typedPayloadsRoundTripThroughTheStoredFields() throws {
        let anchor = Anchor(document: "d", start: TextPosition(passage: "d.1", offset: 0),
                            end: TextPosition(passage: "d.1", offset: 4), quote: "abcd", prefix: "", suffix: "e",
                            edition: "e1")
        let payloads: [ChangePayload] = [
            .create(kind: .highlight, anchor: anchor, note: "n", color: nil, tags: ["a", "b"]),
            .edit(note: .clear, color: .set("blue"), tags: ["a": false]),
            .delete, .undelete, .reanchor(anchor), .confirm(anchor), .reattach(anchor),
            .setPosition(TextPosition(passage: "d.2", offset: 7)),
        ]
        for payload in payloads {
            let change = Change(changeID: Identifiers.make(), hlc: HLC(milliseconds: 1, counter: 0), device: "dev",
                                entityID: payload.entity == .position ? "d" : Identifiers.make(), payload: payload)
            #expect(change.payload == payload)
            try change.fields.validate(for: change.operation, on: change.entity)
        }
        #expect(payloads[1].registers == [.note, .color, .tag("a")])
        // "Clear" is stored as the empty string, as the log and the archive have always held it.
        #expect(payloads[1].fields == ChangeFields(note: "", color: "blue", tags: ["a": false]))
    }
}
