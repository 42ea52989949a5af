import Foundation
import Testing
@testable import Marginalia

/// `annotations(asOf:)`, `annotation(id:asOf:)`, `searchNotes(_:asOf:)` and `diff(since:until:)` replay the log
/// by the changes' clocks; each is checked against the store as it was, copied at that time.
@Suite struct TimeTravelTests {
    typealias Fixtures = ArchiveFixtures

    /// Everything the store lists at one time, taken from its current tables.
    struct Snapshot: Equatable {
        var all: [Annotation]
        var live: [Annotation]
        var tagged: [Annotation]
        var notes: [Annotation]
        var search: [Annotation]

        init(_ store: AnnotationStore) throws {
            all = try store.annotations(matching: AnnotationFilter(includeDeleted: true))
            live = try store.annotations()
            // A tag filter folds case and diacritics, as search does.
            tagged = try store.annotations(matching: AnnotationFilter(tag: "Luceafarul", includeDeleted: true))
            notes = try store.annotations(matching: AnnotationFilter(document: "luceafarul", kind: .note))
            search = try store.searchNotes("inceput OR rude OR seara")
        }

        init(_ store: AnnotationStore, asOf time: Int64) throws {
            all = try store.annotations(asOf: time, matching: AnnotationFilter(includeDeleted: true))
            live = try store.annotations(asOf: time)
            tagged = try store.annotations(asOf: time, matching: AnnotationFilter(tag: "Luceafarul",
                                                                                  includeDeleted: true))
            notes = try store.annotations(asOf: time, matching: AnnotationFilter(document: "luceafarul", kind: .note))
            search = try store.searchNotes("inceput OR rude OR seara", asOf: time)
        }
    }

    /// Makes the fixture's changes, then more of every kind an hour later: edits, deletes, undeletes, a reattach,
    /// a new annotation. Returns the store, the ids, the time between the two rounds and the snapshot taken then
    /// (with a copy of the store file made then).
    static func twoRounds(_ directory: TemporaryDirectory) throws
        -> (store: AnnotationStore, ids: [String], between: Int64, snapshot: Snapshot, copy: String)
    {
        let clock = ManualClock(Fixtures.epoch)
        let store = try Fixtures.store(directory, clock: clock)
        let ids = try Fixtures.populate(store, clock: clock)
        let between = clock.now()
        let snapshot = try Snapshot(store)
        let copy = directory.path("then.db")
        try store.backup(to: directory.path("then.jsonl.gz"))
        try AnnotationStore.restore(archive: directory.path("then.jsonl.gz"), to: copy)
        clock.advance(3_600_000)
        try store.editAnnotation(id: ids[0], note: "al treilea început", color: "", addTags: ["basm"],
                                 removeTags: ["luceafărul"])
        clock.advance(1000)
        try store.undeleteAnnotation(id: ids[1])
        try store.editAnnotation(id: ids[1], note: "rude mari", addTags: ["luceafărul"])
        clock.advance(1000)
        try store.deleteAnnotation(id: ids[2])
        clock.advance(1000)
        try store.reattachAnnotation(id: ids[3], at: AnchorRequest(passage: "luceafarul.4", quote: "frumoasă"))
        clock.advance(1000)
        try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.1", quote: "odată"), note: "seara")
        return (store, ids, between, snapshot, copy)
    }

    @Test func listAsOfEqualsTheStoreAsItWasThen() throws {
        let directory = try TemporaryDirectory()
        let (store, ids, between, snapshot, copy) = try Self.twoRounds(directory)
        try #require(try Snapshot(store) != snapshot)
        #expect(try Snapshot(store, asOf: between) == snapshot)
        // The copy made then lists the same: the replay is the store as it was, not a look-alike.
        let then = try AnnotationStore.open(path: copy, access: .readOnly)
        try then.attachContent(path: directory.path("content-test-1.db"))
        #expect(try Snapshot(then) == snapshot)
        // Now is the current state; before the first change, nothing.
        let now = try Snapshot(store, asOf: Timestamp.nowMilliseconds())
        let current = try Snapshot(store)
        #expect(now.all == current.all)
        #expect(now.live == current.live)
        #expect(now.tagged == current.tagged)
        #expect(now.notes == current.notes)
        #expect(now.search == current.search)
        #expect(try store.annotations(asOf: Fixtures.epoch, matching: AnnotationFilter(includeDeleted: true)).isEmpty)
        for id in ids {
            #expect(try store.annotation(id: id, asOf: between) == then.annotation(id: id))
            let short = try store.abbreviatedID(id, kind: .annotation)
            #expect(try store.annotation(id: short, asOf: between) == then.annotation(id: id))
        }
        #expect(snapshot.search.map(\.id).sorted() == [ids[0], ids[2], ids[3]].sorted())
        #expect(snapshot.tagged.map(\.id) == [ids[0]])
    }

    @Test func asOfCountsTheChangesOfThatMillisecondAndNoneLater() throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock(Fixtures.epoch)
        let store = try Fixtures.store(directory, clock: clock)
        let made = try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.2"), note: "prima")
        clock.advance(1)
        let edited = try store.editAnnotation(id: made.id, note: "a doua")
        #expect(try store.annotation(id: made.id, asOf: Fixtures.epoch - 1) == nil)
        #expect(try store.annotation(id: made.id, asOf: Fixtures.epoch)?.note == "prima")
        #expect(try store.annotation(id: made.id, asOf: Fixtures.epoch + 1) == edited)
        let unknown = thrownError(StoreError.self) { _ = try store.annotation(id: "ffffffff", asOf: Fixtures.epoch) }
        #expect(unknown == .annotationNotFound(id: "ffffffff"))
    }

    @Test func diffNamesExactlyWhatChangedBetweenTwoTimes() throws {
        let directory = try TemporaryDirectory()
        let (store, ids, between, _, _) = try Self.twoRounds(directory)
        let after = try store.log().last.map { $0.hlc.milliseconds } ?? 0
        let diffs = try store.diff(since: between + 1, until: after)
        // The last change (the new note) is at `after`, so it is left out; the rest of the second round is in.
        #expect(diffs.map(\.id) == [ids[0], ids[1], ids[2], ids[3]])
        #expect(diffs.map(\.events) == [[.edited], [.undeleted, .edited], [.deleted], [.moved]])
        let first = diffs[0].fields
        #expect(first.map(\.field) == [.note, .color, .tags])
        #expect(first[0].before == .text("alt început") && first[0].after == .text("al treilea început"))
        #expect(first[1].before == .text("yellow") && first[1].after == FieldValue.none)
        #expect(first[2].before == .tags(["eminescu", "luceafărul"]) && first[2].after == .tags(["basm", "eminescu"]))
        #expect(diffs[1].fields.map(\.field) == [.note, .tags, .deleted])
        #expect(diffs[2].fields == [AnnotationDiff.Field(field: .deleted, before: .flag(false), after: .flag(true))])
        #expect(diffs[3].fields.map(\.field) == [.anchor])
        if case .anchor(let moved) = diffs[3].fields[0].after { #expect(moved.quote == "frumoasă") } else {
            Issue.record("the anchor's new value is not an anchor")
        }
        // Up to now, the new note is created; the first round alone creates all five.
        let toNow = try store.diff(since: between + 1)
        #expect(toNow.count == 5 && toNow[4].events == [.created] && toNow[4].before == nil)
        #expect(toNow[4].fields.map(\.field) == [.kind, .anchor, .note])
        let firstRound = try store.diff(since: Fixtures.epoch, until: between + 1)
        #expect(firstRound.map(\.id) == ids)
        #expect(firstRound.map(\.events) == [[.created], [.created, .deleted], [.created], [.created],
                                              [.created, .deleted]])
        // The two diffs together are the whole history: each before/after is the state at its bound.
        for diff in diffs {
            #expect(diff.before == (try store.annotation(id: diff.id, asOf: between)))
            #expect(diff.after == (try store.annotation(id: diff.id, asOf: after - 1)))
        }
        #expect(try store.diff(since: after + 1).isEmpty)
    }

    @Test func aChangeUndoneInTheSameSpanIsNoDifference() throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock(Fixtures.epoch)
        let store = try Fixtures.store(directory, clock: clock)
        let made = try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.2"), note: "prima")
        clock.advance(1000)
        try store.editAnnotation(id: made.id, note: "a doua")
        clock.advance(1000)
        try store.editAnnotation(id: made.id, note: "prima")
        #expect(try store.diff(since: Fixtures.epoch + 1).isEmpty)
        #expect(try store.diff(since: Fixtures.epoch + 1, until: Fixtures.epoch + 1001).map(\.fields) == [[
            AnnotationDiff.Field(field: .note, before: .text("prima"), after: .text("a doua")),
        ]])
    }
}
