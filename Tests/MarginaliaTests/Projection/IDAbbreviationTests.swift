import Foundation
import Testing
@testable import Marginalia

/// The short ids the tool prints: the shortest prefix of at least 8 characters that names the id alone in the
/// store, which `resolveID` takes back to that id.
@Suite struct IDAbbreviationTests {
    /// A store holding annotations made by merging a create change for each of `ids`, the changes' ids being
    /// `changeIDs` (random ones when not given) and their device `device`.
    static func store(_ directory: TemporaryDirectory, annotations ids: [String], changeIDs: [String]? = nil,
                      device: String = "laptop") throws -> AnnotationStore {
        let store = try makeStore(directory)
        let changeIDs = changeIDs ?? ids.map { _ in Identifiers.make() }
        _ = try store.merge(zip(ids, changeIDs).enumerated().map { index, pair in
            Change(changeID: pair.1, hlc: HLC(milliseconds: 1_000 + Int64(index), counter: 0), device: device,
                   entityID: pair.0,
                   payload: .create(kind: .bookmark, anchor: IDResolutionTests.anchor, note: nil, color: nil, tags: []))
        })
        return store
    }

    @Test func idsSharingTenCharactersGetPrefixesThatNameEachAlone() throws {
        let directory = try TemporaryDirectory()
        let first = "0193a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b"
        let second = "0193a1b2-c4aa-7e5f-8a6b-7c8d9e0f1a2b"
        let alone = "5e1f0c3a-9b2d-4c8e-a1f7-3d6b0e9c2a41"
        let store = try Self.store(directory, annotations: [first, second, alone])
        let short = try store.abbreviatedIDs([first, second, alone, first], kind: .annotation)
        #expect(short == [first: "0193a1b2-c3", second: "0193a1b2-c4", alone: "5e1f0c3a"])
        for (id, prefix) in short {
            #expect(try store.resolveID(prefix, kind: .annotation) == id)
            #expect(try store.resolveID(prefix.uppercased(), kind: .annotation) == id)
            #expect(try store.abbreviatedID(id, kind: .annotation) == prefix)
        }
        // One character fewer names both.
        #expect(throws: MarginaliaError(StoreError.ambiguousID(prefix: "0193a1b2-c", kind: .annotation,
                                                               matches: [first, second], count: 2))) {
            _ = try store.resolveID("0193a1b2-c", kind: .annotation)
        }
    }

    @Test func anIdTheStoreDoesNotHoldIsShortenedAgainstItsNeighbours() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(directory, annotations: ["0193a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b"])
        #expect(try store.abbreviatedID("0193a1b2-c3d4-7e5f-8a6b-000000000000", kind: .annotation)
            == "0193a1b2-c3d4-7e5f-8a6b-0")
        #expect(try store.abbreviatedID("ffffffff-0000-4000-8000-000000000000", kind: .annotation) == "ffffffff")
    }

    @Test func changeAndDeviceIdsAreShortenedAmongTheirOwnKind() throws {
        let directory = try TemporaryDirectory()
        let annotations = ["0193a1b2-0000-7000-8000-000000000001", "0193a1b2-0000-7000-8000-000000000002"]
        let changes = ["0193a1b2-0000-7000-8000-00000000000a", "0193a1b2-0000-7000-8000-0000000000b0"]
        let store = try Self.store(directory, annotations: annotations, changeIDs: changes, device: "tablet")
        let otherDirectory = try TemporaryDirectory()
        let other = try Self.store(otherDirectory, annotations: ["abcd0000-0000-4000-8000-000000000000"],
                                   device: "tablet-2")
        _ = try store.merge(other.changes(after: nil))
        let short = try store.abbreviatedIDs(changes, kind: .change)
        #expect(short == [changes[0]: "0193a1b2-0000-7000-8000-00000000000",
                          changes[1]: "0193a1b2-0000-7000-8000-0000000000b"])
        for (id, prefix) in short { #expect(try store.resolveID(prefix, kind: .change) == id) }
        // A device id that starts another is given whole, and taken back whole; this store's own id is a device's.
        let devices = try store.abbreviatedIDs(["tablet", "tablet-2", store.deviceID], kind: .device)
        #expect(devices == ["tablet": "tablet", "tablet-2": "tablet-2",
                            store.deviceID: String(store.deviceID.prefix(8))])
        for (id, prefix) in devices { #expect(try store.resolveID(prefix, kind: .device) == id) }
        // The annotations' ids do not lengthen the changes' short ids, nor the other way round.
        #expect(try store.abbreviatedID("0193a1b2-ffff-7000-8000-000000000000", kind: .change) == "0193a1b2-f")
        #expect(try store.abbreviatedID(annotations[0], kind: .annotation) == annotations[0])
    }

    @Test func theOwnDeviceIdLengthensAnotherDevicesShortId() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory)
        let own = store.deviceID
        // A device sharing the own id's first 10 characters; the own id is in `devices` only once it wrote.
        let twin = String(own.prefix(10)) + (own.dropFirst(10).first == "0" ? "1" : "0") + String(own.dropFirst(11))
        _ = try store.merge([Change(changeID: Identifiers.make(), hlc: HLC(milliseconds: 1_000, counter: 0),
                                    device: twin, entityID: "abcd0000-0000-4000-8000-000000000000",
                                    payload: .create(kind: .bookmark, anchor: IDResolutionTests.anchor, note: nil,
                                                     color: nil, tags: []))])
        let short = try store.abbreviatedIDs([own, twin], kind: .device)
        #expect(short == [own: String(own.prefix(11)), twin: String(twin.prefix(11))])
        for (id, prefix) in short { #expect(try store.resolveID(prefix, kind: .device) == id) }
    }

    /// Ids made one after another (version 7, so sharing their first characters), old random ones and the ones
    /// above: each short id names its id, and one character fewer names several whenever it is longer than 8.
    @Test func everyShortIdIsTheShortestThatNamesItsId() throws {
        let directory = try TemporaryDirectory()
        var ids = (0..<300).map { _ in Identifiers.make() }
        ids += ["0193a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b", "0193a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2c",
                "0193a1b2-c4aa-7e5f-8a6b-7c8d9e0f1a2b", "5e1f0c3a-9b2d-4c8e-a1f7-3d6b0e9c2a41"]
        let store = try Self.store(directory, annotations: ids)
        let short = try store.abbreviatedIDs(ids, kind: .annotation)
        #expect(short.count == ids.count)
        var lengthened = 0
        for id in ids {
            let prefix = try #require(short[id])
            #expect(id.hasPrefix(prefix) && prefix.count >= 8, "\(prefix) for \(id)")
            #expect(try store.resolveID(prefix, kind: .annotation) == id, "\(prefix)")
            guard prefix.count > 8 else { continue }
            lengthened += 1
            let fewer = String(prefix.dropLast())
            let error = try #require(thrownError(StoreError.self) {
                _ = try store.resolveID(fewer, kind: .annotation)
            }, "\(fewer) names \(id) alone")
            guard case .ambiguousID(let given, _, let matches, let count) = error else {
                Issue.record("\(fewer): \(error)")
                continue
            }
            #expect(given == fewer && count >= 2 && (count > matches.count || matches.contains(id)))
        }
        // The version 7 ids, made one after another, share their first 8 characters (the time in units of 65.536
        // seconds) with another id, all but at most one at the edge of such a unit; the three 0193a1b2 ones too.
        #expect(lengthened >= 301)
    }
}
