import Foundation
import Testing
@testable import Marginalia

/// Ids as the CLI shows them (8 characters) are taken back: whole, or as a unique prefix of at least 4
/// characters, in any ASCII case; an ambiguous prefix names its matches.
@Suite struct IDResolutionTests {
    static let anchor = Anchor(document: "d", start: TextPosition(passage: "d.1", offset: 0),
                               end: TextPosition(passage: "d.1", offset: 4), quote: "abcd", prefix: "", suffix: "",
                               edition: "e1")

    /// A store holding annotations, changes and devices whose ids share prefixes on purpose.
    static func store(_ directory: TemporaryDirectory) throws -> AnnotationStore {
        let store = try makeStore(directory)
        let made: [(change: String, device: String, annotation: String)] = [
            ("c0ffee01-0000-4000-8000-000000000001", "laptop-aaaa1", "abcd1111-0000-4000-8000-000000000001"),
            ("c0ffee02-0000-4000-8000-000000000002", "laptop-aaaa2", "abcd2222-0000-4000-8000-000000000002"),
            ("d00d0003-0000-4000-8000-000000000003", "Phone-B", "ABCE3333-0000-4000-8000-000000000003"),
        ]
        let changes = made.enumerated().map { index, ids in
            Change(changeID: ids.change, hlc: HLC(milliseconds: 1_000 + Int64(index), counter: 0), device: ids.device,
                   entityID: ids.annotation, payload: .create(kind: .highlight, anchor: anchor, note: nil, color: nil,
                                                              tags: []))
        }
        _ = try store.merge(changes)
        return store
    }

    @Test func aUniquePrefixInAnyCaseNamesTheId() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(directory)
        #expect(try store.resolveID("abcd1111-0000-4000-8000-000000000001", kind: .annotation)
            == "abcd1111-0000-4000-8000-000000000001")
        #expect(try store.resolveID("ABCD1", kind: .annotation) == "abcd1111-0000-4000-8000-000000000001")
        #expect(try store.resolveID("abce", kind: .annotation) == "ABCE3333-0000-4000-8000-000000000003")
        #expect(try store.annotation(id: "AbCd2222").id == "abcd2222-0000-4000-8000-000000000002")
        #expect(try store.resolveID("C0FFEE02", kind: .change) == "c0ffee02-0000-4000-8000-000000000002")
        #expect(try store.resolveID("phone", kind: .device) == "Phone-B")
        #expect(try store.resolveID("LAPTOP-AAAA2", kind: .device) == "laptop-aaaa2")
        #expect(try store.log(LogFilter(device: "laptop-aaaa1")).map(\.changeID)
            == ["c0ffee01-0000-4000-8000-000000000001"])
        #expect(try store.log(LogFilter(device: "PHON")).map(\.entityID) == ["ABCE3333-0000-4000-8000-000000000003"])
        // The store's own device has made no change yet, and is still a device it knows.
        let own = String(store.deviceID.prefix(8)).uppercased()
        #expect(try store.resolveID(own, kind: .device) == store.deviceID)
        #expect(try store.log(LogFilter(device: own)).isEmpty)
        #expect(try store.history(id: "abce3333").map(\.changeID) == ["d00d0003-0000-4000-8000-000000000003"])
    }

    @Test func anAmbiguousPrefixListsItsMatches() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(directory)
        let expected = StoreError.ambiguousID(
            prefix: "abcd", kind: .annotation,
            matches: ["abcd1111-0000-4000-8000-000000000001", "abcd2222-0000-4000-8000-000000000002"], count: 2)
        #expect(throws: MarginaliaError(expected)) { _ = try store.annotation(id: "abcd") }
        #expect(MarginaliaError(expected).category == .invalidArgument)
        #expect(expected.description == "'abcd' matches 2 annotations: abcd1111-0000-4000-8000-000000000001, "
            + "abcd2222-0000-4000-8000-000000000002; give more characters")
        #expect(throws: MarginaliaError(StoreError.ambiguousID(
            prefix: "Laptop-", kind: .device, matches: ["laptop-aaaa1", "laptop-aaaa2"], count: 2))) {
            _ = try store.log(LogFilter(device: "Laptop-"))
        }
        #expect(throws: MarginaliaError(StoreError.ambiguousID(
            prefix: "c0ffee", kind: .change, matches: ["c0ffee01-0000-4000-8000-000000000001",
                                                       "c0ffee02-0000-4000-8000-000000000002"], count: 2))) {
            _ = try store.resolveID("c0ffee", kind: .change)
        }
    }

    @Test func shortUnknownAndPatternPrefixesAreRefused() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(directory)
        #expect(throws: MarginaliaError(StoreError.idPrefixTooShort(prefix: "abc", kind: .annotation, minimum: 4))) {
            _ = try store.annotation(id: "abc")
        }
        #expect(throws: MarginaliaError(StoreError.idPrefixTooShort(prefix: "lap", kind: .device, minimum: 4))) {
            _ = try store.log(LogFilter(device: "lap"))
        }
        #expect(throws: MarginaliaError(StoreError.annotationNotFound(id: "ffffffff"))) {
            _ = try store.annotation(id: "ffffffff")
        }
        #expect(throws: MarginaliaError(StoreError.idNotFound(id: "tablet", kind: .device))) {
            _ = try store.log(LogFilter(device: "tablet"))
        }
        // LIKE's wildcards in what was typed are only characters: "ab_d" and "abc%" name nothing.
        #expect(throws: MarginaliaError(StoreError.annotationNotFound(id: "ab_d"))) {
            _ = try store.annotation(id: "ab_d")
        }
        #expect(throws: MarginaliaError(StoreError.annotationNotFound(id: "abc%"))) {
            _ = try store.annotation(id: "abc%")
        }
        #expect(throws: MarginaliaError(StoreError.idNotFound(id: "c0ff%e01", kind: .change))) {
            _ = try store.resolveID("c0ff%e01", kind: .change)
        }
    }

    @Test func aPrefixOfManyIdsListsTheFirstTenAndCountsTheRest() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory)
        let ids = (0..<12).map { String(format: "feed%04d-0000-4000-8000-000000000000", $0) }
        _ = try store.merge(ids.enumerated().map { index, id in
            Change(changeID: Identifiers.make(), hlc: HLC(milliseconds: 1_000 + Int64(index), counter: 0),
                   device: "dev", entityID: id,
                   payload: .create(kind: .bookmark, anchor: Self.anchor, note: nil, color: nil, tags: []))
        })
        let expected = StoreError.ambiguousID(prefix: "FEED", kind: .annotation, matches: Array(ids.prefix(10)),
                                              count: 12)
        #expect(throws: MarginaliaError(expected)) { _ = try store.annotation(id: "FEED") }
        #expect(expected.description.hasSuffix("feed0009-0000-4000-8000-000000000000 and 2 more; give more characters"))
    }
}
