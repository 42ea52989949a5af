import Foundation
import Testing
@testable import Marginalia

/// The one line of a change: written from a `Change` or straight from a log row, the same text; read back, the same
/// change; read strictly.
@Suite struct ChangeCodecTests {
    /// A store with changes of every kind: its own and merged ones (which name their receipt), notes, tags, a
    /// delete, a reading position and device names.
    static func storeWithChangesOfEveryKind(_ directory: TemporaryDirectory) throws -> AnnotationStore {
        let (store, _, _) = try ArchiveReceiptTests.storeWithMergedChanges(directory)
        let note = try store.createAnnotation(.note, at: AnchorRequest(passage: "d.1", start: 2, end: 6),
                                              note: "„ghilimele” și \\ \"escape\"\n")
        try store.editAnnotation(id: note.id, color: "galben", addTags: ["țară", "b"])
        let bookmark = try store.createAnnotation(.bookmark, at: AnchorRequest(passage: "d.2"))
        try store.deleteAnnotation(id: bookmark.id)
        try store.setPosition(document: "d", at: TextPosition(passage: "d.2", offset: 3))
        return store
    }

    /// The fast path, a change's record written from its log row (`write(row:receipt:to:)`, what an export
    /// writes), is byte for byte the record of the change read from that row (`record(_:)`, what a segment
    /// writes), with the row's receipt after it.
    @Test func aRecordWrittenFromItsRowIsTheRecordOfTheChange() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("user.db")
        _ = try Self.storeWithChangesOfEveryKind(directory)
        let db = try SQLiteDatabase(path: path, mode: .readOnly)
        var receipts = 0
        var count = 0
        try db.forEachRow(sql: "SELECT \(Change.columns), receipt FROM changes ORDER BY seq") { row in
            let receipt = row.optionalInt(Change.columnCount).map(Int64.init)
            var writer = JSONWriter()
            try ChangeCodec.write(row: row, receipt: receipt, to: &writer)
            var expected = ChangeCodec.record(try Change(row: row))
            if let receipt {
                expected["receipt"] = .int(receipt)
                receipts += 1
            }
            let text = try JSONWriter.encodeString(.object(expected))
            #expect(String(decoding: writer.bytes, as: UTF8.self) == text)
            count += 1
        }
        #expect(count == 8 && receipts == 2, "the store must hold changes with and without receipts")
    }

    @Test func aChangeReadFromItsRecordIsTheChange() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.storeWithChangesOfEveryKind(directory)
        var changes = try store.changes(after: nil)
        #expect(changes.contains { $0.entity == .position } && changes.contains { $0.entity == .device })
        // A change recorded before wall times (schema 5 and older) has no `madeAt`.
        changes[0].wall = nil
        for change in changes {
            let line = try JSONWriter.encode(.object(ChangeCodec.record(change)))
            guard case .object(let object) = try JSONParser.parse(String(decoding: line, as: UTF8.self)) else {
                Issue.record("a record is an object")
                continue
            }
            #expect(try ChangeCodec.change(from: object) == change)
            #expect(object["madeAt"] == change.wall.map { .string(Timestamp.iso8601(milliseconds: $0)) })
        }
    }

    @Test func aRecordIsReadStrictly() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.storeWithChangesOfEveryKind(directory)
        let change = try #require(try store.changes(after: nil).first { $0.fields.note != nil })
        let record = ChangeCodec.record(change)
        func refusal(_ edit: (inout JSONObject) -> Void, receiptAllowed: Bool = false) -> FieldError? {
            var object = record
            edit(&object)
            do {
                _ = try ChangeCodec.change(from: object, receiptAllowed: receiptAllowed)
                return nil
            } catch {
                return error
            }
        }
        #expect(refusal { $0["receipt"] = .int(1) } == FieldError(field: "receipt", reason: "unknown field"))
        #expect(refusal({ $0["receipt"] = .int(1) }, receiptAllowed: true) == nil)
        #expect(refusal { $0["device"] = nil } == FieldError(field: "device", reason: "required"))
        #expect(refusal { $0["changeId"] = .string("a b") } == FieldError(
            field: "changeId", reason: #"must be 1 to 64 letters, digits, '.', '_' or '-', not "a b""#))
        #expect(refusal { $0["hlc"] = .string("1") } == FieldError(
            field: "hlc", reason: #"must be a clock like 001795954481123-00000, not "1""#))
        let late = HLC(milliseconds: HLC.maxStoredMilliseconds + 1, counter: 0)
        let lateRefusal = try #require(Self.refusal { try late.checkStorable() })
        #expect(refusal { $0["hlc"] = .string(late.description) } == lateRefusal)
        #expect(refusal { $0["entityId"] = .string("") } == FieldError(
            field: "entityId", reason: #"must be 1 to 64 letters, digits, '.', '_' or '-', not """#))
        #expect(refusal { $0["fields"] = .object(JSONObject([("note", .int(3))])) }
            == FieldError(field: "fields.note", reason: "must be a string"))
        #expect(refusal { $0["madeAt"] = .string("2026-12-02T01:30:10Z") } == FieldError(field: "madeAt",
            reason: #"must be a UTC time like 2026-12-02T01:30:10.123Z, not "2026-12-02T01:30:10Z""#))
    }

    /// A change handed to the merger as a `Change` gets the checks its record gets.
    @Test func aChangeIsCheckedAsItsRecordIsRead() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.storeWithChangesOfEveryKind(directory)
        let change = try #require(try store.changes(after: nil).first { $0.entity == .annotation })
        var bad = change
        bad.entityID = "a b"
        let read = Self.refusal { _ = try ChangeCodec.change(from: ChangeCodec.record(bad)) }
        #expect(read == FieldError(
            field: "entityId", reason: #"must be 1 to 64 letters, digits, '.', '_' or '-', not "a b""#))
        #expect(Self.refusal { try bad.check() } == read)
        #expect(Self.refusal { try change.check() } == nil)
    }

    static func refusal(of body: () throws -> Void) -> FieldError? {
        do {
            try body()
            return nil
        } catch let error as FieldError {
            return error
        } catch {
            Issue.record("not a FieldError: \(error)")
            return nil
        }
    }
}
