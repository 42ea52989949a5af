import Foundation
import Testing
@testable import Marginalia

/// The models an app keeps or sends (annotations, anchors, positions, clocks) survive `Codable` unchanged.
@Suite struct ModelCodableTests {
    private func roundTrip<Value: Codable & Equatable>(_ value: Value) throws -> Value {
        try JSONDecoder().decode(Value.self, from: try JSONEncoder().encode(value))
    }

    @Test func annotationsAndPositionsFromARealStoreRoundTrip() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: makeSource([("d", [("d.1", "Ziua întâi, ziua a doua"),
                                                                       ("d.2", "și noaptea")])]))
        try store.createAnnotation(.note, at: AnchorRequest(passage: "d.1", quote: "întâi"), note: "o notă",
                                   color: "yellow", tags: ["poezie", "zi"])
        try store.createAnnotation(.bookmark, at: AnchorRequest(passage: "d.1", endPassage: "d.2"))
        let annotations = try store.annotations()
        #expect(annotations.count == 2)
        for annotation in annotations {
            #expect(try roundTrip(annotation) == annotation)
            #expect(try roundTrip(annotation.anchor) == annotation.anchor)
            #expect(try roundTrip(annotation.anchor.start) == annotation.anchor.start)
        }
        let position = try store.setPosition(document: "d", at: TextPosition(passage: "d.2", offset: 3))
        #expect(try roundTrip(position) == position)
        #expect(try roundTrip(position.updatedAt) == position.updatedAt)
    }

    @Test func aClockIsCodedAsItsTextForm() throws {
        let hlc = HLC(milliseconds: 1_795_954_481_123, counter: 7)
        #expect(String(decoding: try JSONEncoder().encode([hlc]), as: UTF8.self) == "[\"001795954481123-00007\"]")
        #expect(try roundTrip(hlc) == hlc)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([HLC].self, from: Data("[\"yesterday\"]".utf8))
        }
    }
}
