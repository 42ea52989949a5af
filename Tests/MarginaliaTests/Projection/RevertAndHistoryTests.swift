import Foundation
import Testing
@testable import Marginalia

/// `revertAnnotation(id:to:)` writes one change that merges like any edit; `historyEntries(id:)` shows what each
/// change set and what it replaced, and which values lost a merge.
@Suite struct RevertAndHistoryTests {
    typealias Fixtures = ArchiveFixtures

    /// A note made, edited twice (note, color, tags), moved by hand and deleted, one second apart.
    static func edited(_ store: AnnotationStore, clock: ManualClock) throws -> (id: String, changes: [Change]) {
        let made = try store.createAnnotation(
            .note, at: AnchorRequest(passage: "luceafarul.2", quote: "niciodată"), note: "prima", color: "yellow",
            tags: ["basm"])
        clock.advance(1000)
        try store.editAnnotation(id: made.id, note: "a doua", color: "blue", addTags: ["dor"], removeTags: ["basm"])
        clock.advance(1000)
        try store.reattachAnnotation(id: made.id, at: AnchorRequest(passage: "luceafarul.4", quote: "fată"))
        clock.advance(1000)
        try store.editAnnotation(id: made.id, note: "a treia", color: "")
        clock.advance(1000)
        try store.deleteAnnotation(id: made.id)
        clock.advance(1000)
        return (made.id, try store.history(id: made.id))
    }

    @Test func revertRestoresEveryFieldInOneLoggedChange() throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock(Fixtures.epoch)
        let store = try Fixtures.store(directory, clock: clock)
        let (id, changes) = try Self.edited(store, clock: clock)
        let count = try store.changeCount()
        // Both ids as the tool prints them short.
        let result = try store.revertAnnotation(id: try store.abbreviatedID(id, kind: .annotation),
                                                to: try store.abbreviatedID(changes[1].changeID, kind: .change))
        let expected = try #require(try store.annotation(id: id, asOf: changes[1].hlc.milliseconds))
        #expect(result.annotation.note == "a doua" && result.annotation.color == "blue")
        #expect(result.annotation.tags == ["dor"] && !result.annotation.deleted)
        #expect(result.annotation.anchor == expected.anchor && result.annotation.anchor.quote == "niciodată")
        #expect(try store.annotation(id: id) == result.annotation)
        #expect(try store.changeCount() == count + 1)
        let written = result.change
        #expect(written.operation == .edit && written.fields.revertTo == changes[1].changeID)
        #expect(written.fields.note == "a doua" && written.fields.color == "blue" && written.fields.deleted == false)
        #expect(written.fields.tags == ["basm": false, "dor": true])
        #expect(written.fields.anchor == expected.anchor)
        #expect(written.payload == .revert(to: changes[1].changeID, note: .set("a doua"), color: .set("blue"),
                                           tags: ["basm": false, "dor": true], deleted: false,
                                           anchor: expected.anchor))
        #expect(try store.history(id: id).last == written)
        #expect(try store.verify().isHealthy)
        // Back to the first state: the color the first edit replaced, the tag it removed.
        clock.advance(1000)
        let first = try store.revertAnnotation(id: id, to: changes[0].changeID.uppercased())
        #expect(first.annotation.note == "prima" && first.annotation.color == "yellow" && first.annotation.tags == ["basm"])
        #expect(try store.verify().isHealthy)
    }

    @Test func aRevertThatCannotBeMadeChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock(Fixtures.epoch)
        let store = try Fixtures.store(directory, clock: clock)
        let (id, changes) = try Self.edited(store, clock: clock)
        let other = try store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.1"))
        let before = try store.canonicalFingerprint()
        let foreign = try #require(try store.history(id: other.id).first)
        #expect(thrownError(StoreError.self) { try store.revertAnnotation(id: id, to: foreign.changeID) }
            == .changeNotOfAnnotation(change: foreign.changeID, annotation: id))
        #expect(thrownError(StoreError.self) { try store.revertAnnotation(id: id, to: "abc") }
            == .idPrefixTooShort(prefix: "abc", kind: .change, minimum: 4))
        #expect(thrownError(StoreError.self) { try store.revertAnnotation(id: id, to: "abcdef") }
            == .idNotFound(id: "abcdef", kind: .change))
        // The last change is the delete: the state right after it is the current one.
        let last = try #require(changes.last)
        #expect(thrownError(StoreError.self) { try store.revertAnnotation(id: id, to: last.changeID) }
            == .unchanged(id: id, reason: "annotation \(id) is already as it was right after change \(last.changeID)"))
        #expect(thrownError(StoreError.self) { try store.revertAnnotation(id: "ffffffff", to: last.changeID) }
            == .annotationNotFound(id: "ffffffff"))
        #expect(try store.canonicalFingerprint() == before)
    }

    @Test func aRevertMergesOnAnotherStoreLikeAnyEdit() throws {
        let directory = try TemporaryDirectory()
        let a = try Replica("a", in: directory, clock: ManualClock(Fixtures.epoch))
        let b = try Replica("b", in: directory, clock: ManualClock(Fixtures.epoch))
        let (id, changes) = try Self.edited(a.store, clock: a.clock)
        b.clock.set(a.clock.now())
        try b.importArchive(try a.export())
        // b undeletes and edits before a's revert (older clocks): the revert wins every field it sets; the tag b
        // added, which a did not know of when it reverted, stays.
        try b.store.undeleteAnnotation(id: id)
        try b.store.editAnnotation(id: id, note: "de pe b", addTags: ["b"])
        a.clock.set(b.clock.now() + 1000)
        let reverted = try a.store.revertAnnotation(id: id, to: changes[0].changeID)
        try b.importArchive(try a.export())
        try a.importArchive(try b.export())
        #expect(try a.state() == b.state())
        let merged = try b.store.annotation(id: id)
        #expect(merged.note == "prima" && merged.color == "yellow" && merged.tags == ["b", "basm"] && !merged.deleted)
        #expect(merged.anchor == reverted.annotation.anchor)
        #expect(try b.store.history(id: id).contains(reverted.change))
        #expect(try b.store.verify().isHealthy)
    }

    @Test func historyShowsEachFieldsPreviousValue() throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock(Fixtures.epoch)
        let store = try Fixtures.store(directory, clock: clock)
        let (id, changes) = try Self.edited(store, clock: clock)
        let entries = try store.historyEntries(id: String(id.prefix(6)))
        #expect(entries.map(\.change) == changes)
        #expect(entries[0].fields.map(\.register) == [.kind, .anchor, .note, .color, .tag("basm")])
        #expect(entries[0].fields[2] == FieldTransition(register: .note, previous: .none, value: .text("prima")))
        #expect(entries[1].fields == [
            FieldTransition(register: .note, previous: .text("prima"), value: .text("a doua")),
            FieldTransition(register: .color, previous: .text("yellow"), value: .text("blue")),
            FieldTransition(register: .tag("basm"), previous: .flag(true), value: .flag(false)),
            FieldTransition(register: .tag("dor"), previous: .none, value: .flag(true)),
        ])
        #expect(entries[2].fields.map(\.register) == [.anchor])
        #expect(entries[3].fields == [
            FieldTransition(register: .note, previous: .text("a doua"), value: .text("a treia")),
            FieldTransition(register: .color, previous: .text("blue"), value: .none),
        ])
        #expect(entries[4].fields == [FieldTransition(register: .deleted, previous: .flag(false), value: .flag(true))])
        #expect(entries.allSatisfy { $0.fields.allSatisfy { !$0.lost } })
    }

    @Test func historyShowsTheValueThatLostAMerge() throws {
        let directory = try TemporaryDirectory()
        let (a, b, id) = try Fixtures.rivalNoteEdits(in: directory)
        let onB = try #require(try b.store.history(id: id).last)
        let onA = try #require(try a.store.history(id: id).last)
        try b.importArchive(try a.export())
        try a.importArchive(try b.export())
        // On b, a's older edit arrived after b's: it lost, and b's value stayed.
        let seenOnB = try b.store.historyEntries(id: id)
        #expect(seenOnB.map(\.change) == [try #require(try a.store.history(id: id).first), onB, onA])
        #expect(seenOnB[1].fields == [FieldTransition(register: .note, previous: .text("prima"), value: .text("din b"))])
        #expect(seenOnB[2].fields == [FieldTransition(register: .note, previous: .text("din b"), value: .text("din a"),
                                                      keptBy: onB.changeID)])
        // On a, b's newer edit arrived after a's and won.
        let seenOnA = try a.store.historyEntries(id: id)
        #expect(seenOnA.map(\.change.changeID).suffix(2) == [onA.changeID, onB.changeID])
        #expect(seenOnA[2].fields == [FieldTransition(register: .note, previous: .text("din a"), value: .text("din b"))])
        #expect(try a.store.annotation(id: id).note == "din b" && b.store.annotation(id: id).note == "din b")
        // The value that lost can be brought back: a revert to its change, by the clocks.
        b.clock.advance(1000)
        #expect(try b.store.revertAnnotation(id: id, to: onA.changeID).annotation.note == "din a")
    }

    @Test func onlyARevertEditMaySetTheAnchorAndTheDeletedFlag() throws {
        func refusal(_ fields: ChangeFields, _ operation: ChangeOperation) -> FieldError? {
            do {
                try fields.validate(for: operation, on: .annotation)
                return nil
            } catch {
                return error
            }
        }
        let anchor = Anchor(document: "d", start: TextPosition(passage: "d.1", offset: 0),
                            end: TextPosition(passage: "d.1", offset: 1), quote: "a", prefix: "", suffix: "",
                            edition: "e")
        #expect(refusal(ChangeFields(deleted: true), .edit)
            == FieldError(field: "deleted", reason: "not allowed in a edit change"))
        #expect(refusal(ChangeFields(anchor: anchor, note: "x"), .edit)
            == FieldError(field: "document", reason: "not allowed in a edit change"))
        #expect(refusal(ChangeFields(revertTo: "c1"), .edit) == FieldError(field: "", reason: "a revert change sets nothing"))
        #expect(refusal(ChangeFields(deleted: true, revertTo: "c1"), .delete)
            == FieldError(field: "revertTo", reason: "not allowed in a delete change"))
        let revert = ChangeFields(anchor: anchor, note: "", color: "red", tags: ["t": false], deleted: false,
                                  revertTo: "c1")
        #expect(refusal(revert, .edit) == nil)
        // The stored form reads back exactly, and a revertTo that is no change id is refused.
        let text = try revert.jsonText()
        #expect(text.hasSuffix(#","deleted":false,"revertTo":"c1"}"#))
        #expect(try ChangeFields(json: JSONParser.parse(text)) == revert)
        #expect(throws: FieldError(field: "revertTo", reason: "must be 1 to 64 ASCII letters, digits, '.', '_' or '-'")) {
            try ChangeFields(json: JSONParser.parse(#"{"note":"x","revertTo":"not an id"}"#))
        }
    }
}
