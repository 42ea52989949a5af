import Foundation
import Testing
@testable import Marginalia

/// The log's clock order is `ClockStamp`'s on every store: changes on one clock come in the order of their device
/// ids, whatever number each store gave the devices (schema 5 numbers them in the order they arrived).
@Suite struct ClockOrderTests {
    @Test func changesOnOneClockAreOrderedByDeviceIDWhateverTheirNumbers() throws {
        let directory = try TemporaryDirectory()
        let source = makeSource([("d", [("d.1", "A fost odată ca-n poveşti,")])])
        let origin = try makeStore(directory, source: source, name: "origin.db")
        let made = try origin.createAnnotation(.highlight, at: AnchorRequest(passage: "d.1"))
        let create = try #require(try origin.history(id: made.id).first)
        let clock = HLC(milliseconds: create.hlc.milliseconds + 1000, counter: 0)
        func edit(by device: String, note: String) -> Change {
            Change(changeID: Identifiers.make(), hlc: clock, device: device, entity: .annotation, entityID: made.id,
                   operation: .edit, fields: ChangeFields(note: note))
        }
        let first = "aaaaaaaa-0000-4000-8000-000000000000"
        let last = "ffffffff-0000-4000-8000-000000000000"
        let store = try makeStore(directory, source: source)
        _ = try store.merge([create])
        // The device whose id sorts last arrives first, and so has the smaller number.
        _ = try store.merge([edit(by: last, note: "din urmă")])
        _ = try store.merge([edit(by: first, note: "întâi")])
        let numbered = try store.db.fetchAll(sql: "SELECT id FROM devices ORDER BY number") { try $0.string(0) }
        #expect(numbered.suffix(2) == [last, first])

        #expect(try store.history(id: made.id).map(\.device) == [create.device, first, last])
        #expect(try store.log().map(\.device) == [create.device, first, last])
        #expect(try store.log(LogFilter(limit: 2)).map(\.device) == [first, last])
        // The later device wins the tie, as ClockStamp orders them.
        #expect(try store.annotation(id: made.id).note == "din urmă")
    }
}
