import Foundation
import Testing
@testable import Marginalia

/// Files read in pieces give what they give read whole: a clipping, a line break (CRLF), a code point or a quoted
/// CSV field split across two pieces changes nothing, and so do the errors.
@Suite struct InteropPiecesTests {
    /// Every item of `bytes` in `format`, read `pieceSize` bytes at a time.
    private func items(_ bytes: [UInt8], _ format: InteropFormat, pieceSize: Int) throws -> [ImportItem] {
        var items: [ImportItem] = []
        try InteropReader.read(ByteArraySource(bytes), format: format, file: "f", pieceSize: pieceSize) {
            items.append($0)
        }
        return items
    }

    /// The error reading `bytes` `pieceSize` bytes at a time throws, in words.
    private func failure(_ bytes: [UInt8], _ format: InteropFormat, pieceSize: Int) -> String? {
        do {
            _ = try items(bytes, format, pieceSize: pieceSize)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func kindleClippingsReadInPiecesOfEverySmallSizeAreTheClippingsReadWhole() throws {
        let bytes = InteropFixtures.asDeviceWrites(try InteropFixtures.romanianClippings)
        let whole = try KindleClippings.read(bytes, file: "f")
        #expect(whole.count == 10)
        #expect(bytes.contains(0xC4), "the clippings hold two-byte code points, for pieces to cut")
        for size in [4, 5, 6, 7, 13, 64, 1000] {
            #expect(try items(bytes, .kindle, pieceSize: size) == whole, "pieces of \(size) bytes")
        }
    }

    @Test func aReadwiseQuotedFieldSpanningPiecesAndLinesIsOneField() throws {
        let text = "Highlight,Book Title,Book Author,Note,Location\r\n"
            + "\"Dorm, \"\"în\"\" pace\r\nla umbra ta\",Poezii,Mihai Eminescu,\"notă, lungă\",12\r\n"
            + "Şi stele,Poezii,,,40\n"
        let bytes = Array(text.utf8)
        let whole = try ReadwiseCSV.read(bytes, file: "f")
        #expect(whole.map(\.text) == ["Dorm, \"în\" pace\r\nla umbra ta", "Şi stele"])
        #expect(whole.map(\.note) == ["notă, lungă", nil])
        #expect(whole.map(\.line) == [2, 4])
        for size in 4...12 {
            #expect(try items(bytes, .readwise, pieceSize: size) == whole, "pieces of \(size) bytes")
        }
    }

    @Test func aByteThatIsNotUTF8AfterABadClippingIsWhatIsWrongInPiecesToo() throws {
        let bad = "Poezii (Mihai Eminescu)\r\nno description\r\n\r\ntext\r\n==========\r\n"
        let good = "Poezii (Mihai Eminescu)\r\n- Your Highlight on Location 1-2 | Added on Monday, 1 January 2024 "
            + "10:00:00\r\n\r\nDorm în pace\r\n==========\r\n"
        let bytes = Array((bad + good).utf8) + [0xFF] + Array(good.utf8)
        let offset = (bad + good).utf8.count
        for size in [4, 9, 4096] {
            #expect(failure(bytes, .kindle, pieceSize: size) == "f: byte \(offset) is not UTF-8; the file must be "
                + "UTF-8 text", "pieces of \(size) bytes")
        }
        #expect(failure(Array((bad + good).utf8), .kindle, pieceSize: 9) == "f: line 2: expected a line describing "
            + "the clipping (\"- Your Highlight …\"), not \"no description\"")
    }

    @Test func aCSVSyntaxErrorAfterARowThatCannotBeReadIsWhatIsWrong() throws {
        let text = "Highlight,Book Title\r\nonly one field\r\n\"a\"b,Poezii\r\n"
        for size in [4, 7, 4096] {
            #expect(failure(Array(text.utf8), .readwise, pieceSize: size) == "f: line 3: text after the closing "
                + "quote of a field (a quote in a quoted field is written twice: \"\")", "pieces of \(size) bytes")
        }
        #expect(failure(Array("Highlight,Book Title\r\nonly one field\r\n".utf8), .readwise, pieceSize: 5)
            == "f: line 2: 1 fields where the header has 2")
    }

    @Test func aClippingTooLongIsReportedAfterTheWholeFileIsRead() throws {
        let long = String(repeating: "a", count: FieldLimits.maxTextBytes + 1)
        let clipping = "Poezii (Mihai Eminescu)\r\n- Your Highlight on Location 1-2 | Added on Monday, 1 January "
            + "2024 10:00:00\r\n\r\n\(long)\r\n==========\r\n"
        #expect(failure(Array(clipping.utf8), .kindle, pieceSize: 4096) == "f: line 1: the highlight holds "
            + "\(long.utf8.count) bytes of text; an annotation holds at most \(FieldLimits.maxTextBytes): nothing "
            + "was imported (nothing is cut short)")
        let bad = "Poezii\r\nno description\r\n==========\r\n"
        #expect(failure(Array((clipping + bad).utf8), .kindle, pieceSize: 4096) == "f: line 7: expected a line "
            + "describing the clipping (\"- Your Highlight …\"), not \"no description\"")
    }
}
