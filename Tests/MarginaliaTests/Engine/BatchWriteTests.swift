import Foundation
import Testing
@testable import Marginalia

/// A batch of local writes commits whole or not at all: each write is one change of the log, chained by its
/// digest, and a write that fails part-way fails the whole batch, even when the batch's body catches its error.
@Suite struct BatchWriteTests {
    let source = makeSource([
        ("luceafarul", [
            ("luceafarul.1", "A fost odată ca-n poveşti,"),
            ("luceafarul.2", "A fost ca niciodată,"),
        ]),
    ])

    /// Makes the store refuse, from a trigger, any annotation row whose note is `refused`: the create's change is
    /// then already in the log when its annotation row fails, the case a write must never leave half done.
    static func refuseNote(_ note: String, in path: String) throws {
        let db = try SQLiteDatabase(path: path)
        try db.executeScript(sql: """
            CREATE TRIGGER test_refuse BEFORE INSERT ON annotations WHEN new.note = '\(note)'
            BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;
            """)
    }

    @Test func aBatchOfCreatesIsOneChangeEachChainedByItsDigest() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        let created = try store.batch {
            try (0..<40).map { index in
                try store.createAnnotation(index % 2 == 0 ? .highlight : .note,
                                           at: AnchorRequest(passage: "luceafarul.\(index % 2 + 1)", start: 2, end: 6),
                                           note: index % 2 == 0 ? nil : "nota \(index)", tags: ["t\(index % 3)"])
            }
        }
        #expect(try store.changeCount() == 40)
        for annotation in created { #expect(try store.annotation(id: annotation.id) == annotation) }
        let connection = try StoreConnection.open(path: directory.path("user.db"), access: .readOnly)
        let (head, firstBreak) = try connection.recomputeChain()
        #expect(firstBreak == nil)
        #expect(head == (try connection.logHead()))
        #expect(head.sequence == 40)
    }

    @Test func aWriteThatFailsInsideABatchFailsTheBatchEvenWhenCaught() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        try store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.1"))
        try Self.refuseNote("refused", in: directory.path("user.db"))
        let before = try canonicalDump(directory.path("user.db"))
        var caught: MarginaliaError?
        var later: MarginaliaError?
        var thrown: MarginaliaError?
        do {
            try store.batch {
                try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.1"), note: "kept?")
                do {
                    try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.2"), note: "refused")
                } catch let error as MarginaliaError {
                    caught = error
                }
                do {
                    try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.2"), note: "after")
                } catch let error as MarginaliaError {
                    later = error
                }
            }
        } catch let error as MarginaliaError {
            thrown = error
        }
        let failure = try #require(caught)
        #expect(failure.description.contains("refused by the test"))
        #expect(later == failure)
        #expect(thrown == failure)
        #expect(try canonicalDump(directory.path("user.db")) == before)
        // The store goes on: a later batch without the refused note commits.
        try store.batch {
            try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.1"), note: "kept")
        }
        #expect(try store.changeCount() == 2)
    }

    @Test func aWriteRefusedBeforeItWritesLeavesTheRestOfTheBatch() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        let first = try store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.1"), color: "yellow")
        try store.batch {
            // Nothing to change: refused before the write begins, so the batch goes on.
            #expect(throws: MarginaliaError.self) { try store.editAnnotation(id: first.id, color: "yellow") }
            #expect(throws: MarginaliaError.self) {
                try store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.9"))
            }
            try store.editAnnotation(id: first.id, color: "green")
        }
        #expect(try store.annotation(id: first.id).color == "green")
        #expect(try store.changeCount() == 2)
    }
}
