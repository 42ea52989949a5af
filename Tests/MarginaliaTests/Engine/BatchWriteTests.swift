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

    /// Makes the store refuse, from a trigger, any annotation row written (`INSERT` or `UPDATE`) whose note is
    /// `refused`: the write's change is then already in the log when its annotation row fails, the case a write must
    /// never leave half done.
    static func refuseNote(_ note: String, on write: String = "INSERT", in path: String) throws {
        let db = try SQLiteDatabase(path: path)
        try db.executeScript(sql: """
            CREATE TRIGGER test_refuse_\(write.lowercased()) BEFORE \(write) ON annotations WHEN new.note = '\(note)'
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
        let (head, firstBreak) = try connection.log.recomputeChain()
        #expect(firstBreak == nil)
        #expect(head == (try connection.log.head()))
        #expect(head.sequence == 40)
    }

    @Test func aWriteThatFailsInsideABatchFailsTheBatchEvenWhenCaught() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        let first = try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.1"), note: "first")
        try Self.refuseNote("refused", on: "UPDATE", in: directory.path("user.db"))
        let before = try canonicalDump(directory.path("user.db"))
        var caught: MarginaliaError?
        var later: MarginaliaError?
        var thrown: MarginaliaError?
        do {
            try store.batch {
                try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.1"), note: "kept?")
                do {
                    try store.editAnnotation(id: first.id, note: "refused")
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

    /// A new annotation's row is written with the batch's other new ones, after the create returned: when writing
    /// it fails, the batch fails whole, with that error, and nothing of it is committed.
    @Test func aNewRowThatFailsFailsTheBatchThatMadeIt() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        try store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.1"))
        try Self.refuseNote("refused", in: directory.path("user.db"))
        let before = try canonicalDump(directory.path("user.db"))
        /// What `body` threw, as the tool would print it.
        func failure(_ body: () throws -> Void) -> String? {
            do {
                try body()
                return nil
            } catch {
                return String(describing: error)
            }
        }
        let error = try #require(failure {
            try store.batch {
                for note in ["kept?", "refused", "after"] {
                    try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.2"), note: note)
                }
            }
        })
        #expect(error.contains("refused by the test"))
        #expect(try canonicalDump(directory.path("user.db")) == before)
        // Read inside the batch, the refused row fails the read, and the batch.
        let read = try #require(failure {
            try store.batch {
                let created = try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.2"),
                                                         note: "refused")
                _ = try? store.annotation(id: created.id)
            }
        })
        #expect(read.contains("refused by the test"))
        #expect(try canonicalDump(directory.path("user.db")) == before)
        try store.batch {
            try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.1"), note: "kept")
        }
        #expect(try store.changeCount() == 2)
    }

    /// Inside a batch, every read sees the annotations the batch created, though their rows are written together:
    /// by id, in lists, in the notes index, in counts; after it, so does everything, as if each was written alone.
    @Test func theRowsABatchHoldsBackAreSeenByEveryRead() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: source)
        let alone = try makeStore(directory, source: source, name: "alone.db")
        let count = StoreTransaction.deferredCreateLimit * 2 + 300
        func request(_ index: Int) -> (AnchorRequest, String?) {
            (AnchorRequest(passage: "luceafarul.\(index % 2 + 1)", start: 2, end: 6),
             index % 3 == 0 ? "stiinta \(index)" : nil)
        }
        try store.batch {
            var made: [Annotation] = []
            for index in 0..<count {
                let (anchor, note) = request(index)
                made.append(try store.createAnnotation(note == nil ? .highlight : .note, at: anchor, note: note))
                if index == 10 {
                    #expect(try store.annotation(id: made[3].id) == made[3])
                    #expect(try store.searchNotes("stiinta", limit: count).count == 4)
                    #expect(try store.annotations(matching: AnnotationFilter()).count == 11)
                }
            }
            try store.editAnnotation(id: made.last!.id, note: "editat")
            #expect(try store.annotation(id: made.last!.id).note == "editat")
            #expect(try store.annotations(matching: AnnotationFilter()).count == count)
        }
        var last: Annotation?
        for index in 0..<count {
            let (anchor, note) = request(index)
            last = try alone.createAnnotation(note == nil ? .highlight : .note, at: anchor, note: note)
        }
        try alone.editAnnotation(id: try #require(last).id, note: "editat")
        #expect(try store.annotations(matching: AnnotationFilter()).count == count)
        let found = try store.searchNotes("stiinta", limit: count)
        #expect(found.count == (0..<count).filter { $0 % 3 == 0 }.count)
        #expect(found.count == (try alone.searchNotes("stiinta", limit: count).count))
        #expect(try store.searchNotes("editat").count == 1)
        #expect(try store.verify().problems == [])
        let db = try SQLiteDatabase(path: directory.path("user.db"), mode: .readOnly)
        #expect(try db.text(sql: "PRAGMA integrity_check") == "ok")
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
