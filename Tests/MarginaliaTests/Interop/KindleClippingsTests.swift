import Foundation
import Testing
@testable import Marginalia

@Suite struct KindleClippingsTests {
    /// What the tests compare of an item: kind, title, author, location, date, text, note.
    struct Seen: Equatable {
        var kind: AnnotationKind, title: String, author: String?, location: String, date: Int64?, text: String
        var note: String?

        init(_ item: ImportItem) {
            (kind, title, author, location, date) = (item.kind, item.title, item.author, item.location.label,
                                                     item.date)
            (text, note) = (item.text, item.note)
        }
    }

    @Test func theKindle4LayoutWithShortEndLocationsAndOffsets() throws {
        let items = try KindleClippings.read(try InteropFixtures.kindle("kindle4_clippings.txt"), file: "k4")
        #expect(items.map(Seen.init).map(\.location) == ["location 563-564", "location 116-118"])
        #expect(items.map(\.title) == ["Dubliners", "Lab Girl"])
        #expect(items.map(\.author) == ["James Joyce", "Hope Jahren"])
        // "Saturday, 29 April 17 21:23:29 GMT-02:23": 2017-04-29 23:46:29 UTC.
        #expect(items[0].date == ClippingDate.make(year: 2017, month: 4, day: 29, hour: 23, minute: 46, second: 29,
                                                   millisecond: 0, offsetMinutes: 0))
        #expect(items[0].text.hasPrefix("Like illumined pearls"))
        #expect(items[0].text.hasSuffix("unceasing murmur."))
        #expect(items.allSatisfy { $0.kind == .highlight && $0.line > 0 })
    }

    @Test func theOldLayoutWithPagesAndNotes() throws {
        let items = try KindleClippings.read(try InteropFixtures.kindle("old_gen_kindle_clippings.txt"), file: "old")
        #expect(items.map(\.kind) == [.highlight, .note, .highlight, .note])
        #expect(items.map(\.location.label) == ["page 20", "page 20", "page 20", "page 20"])
        #expect(items[1].note == "python vs. perl")
        #expect(items[1].text == "")
        #expect(items[3].title == "Learning_Python_Second_Edition")
        // "Monday, November 14, 2011, 10:24 AM"
        #expect(items[0].date == 1_321_266_240_000)
        #expect(items[2].text.hasSuffix("subtle ways\u{2014}much like natural language"))
    }

    @Test func thePaperwhiteAndTouchLayouts() throws {
        let paperwhite = try KindleClippings.read(try InteropFixtures.kindle("paperwhite_clippings.txt"), file: "pw")
        #expect(paperwhite.map(\.location.label) == ["location 181-182", "location 529-530", "location 1006"])
        #expect(paperwhite[2].title == "Two Scoops of Django: Best Practices for Django 1.5")
        #expect(paperwhite[2].author == "Daniel Greenfeld;Audrey Roy")
        // "Tuesday, November 19, 2013 1:23:50 PM"
        #expect(paperwhite[0].date == 1_384_867_430_000)
        let touch = try KindleClippings.read(try InteropFixtures.kindle("touch_clippings.txt"), file: "touch")
        #expect(touch.map(\.kind) == [.note, .highlight])
        #expect(touch.map(\.location.label) == ["page 41, location 391", "page 41, location 390-391"])
        #expect(touch[0].note == "regex should not be allowed")
    }

    @Test(arguments: InteropFixtures.kindleFiles)
    func aFileAsADeviceWritesItReadsTheSame(_ name: String) throws {
        let plain = try InteropFixtures.kindle(name)
        let device = InteropFixtures.asDeviceWrites(plain)
        #expect(device.starts(with: [0xEF, 0xBB, 0xBF]))
        #expect(device.contains(0x0D))
        let expected = try KindleClippings.read(plain, file: name).map(Seen.init)
        #expect(!expected.isEmpty)
        #expect(try KindleClippings.read(device, file: name).map(Seen.init) == expected)
        // Old Macs' CR alone, too.
        let cr = Array(String(decoding: plain, as: UTF8.self).replacingOccurrences(of: "\n", with: "\r").utf8)
        #expect(try KindleClippings.read(cr, file: name).map(Seen.init) == expected)
        #expect(InteropReader.detect(plain) == .kindle)
        #expect(InteropReader.detect(device) == .kindle)
    }

    @Test func theNewestLayoutWithBookmarksAndDayFirstDates() throws {
        let text = """
            Poezii (Mihai Eminescu)
            - Your Highlight on page 5 | Location 70-71 | Added on Monday, 30 November 2026 21:14:05

            A fost odată ca-n povești,
            ==========
            Poezii (Mihai Eminescu)
            - Your Bookmark on page 5 | Location 62 | Added on Monday, 30 November 2026 21:15:00


            ==========
            Poezii (Mihai Eminescu)
            - Your Highlight at location 80-82 | Added on Tuesday, 1 December 2026 07:00:00

            two
            lines
            ==========
            """
        let items = try KindleClippings.read(Array(text.utf8), file: "new")
        #expect(items.map(\.kind) == [.highlight, .bookmark, .highlight])
        #expect(items[0].location == ItemLocation(start: 70, end: 71, page: "5"))
        #expect(items[1].location == ItemLocation(start: 62, page: "5"))
        #expect(items[1].text == "")
        #expect(items[2].location == ItemLocation(start: 80, end: 82))
        #expect(items[2].text == "two\nlines")
        #expect(items[0].date == ClippingDate.make(year: 2026, month: 11, day: 30, hour: 21, minute: 14, second: 5,
                                                   millisecond: 0, offsetMinutes: 0))
        #expect(items[2].date == 1_796_108_400_000)
    }

    @Test func datesInEveryLayout() {
        #expect(ClippingDate.milliseconds("Monday, 30 November 2026 21:14:05") == 1_796_073_245_000)
        #expect(ClippingDate.milliseconds("Monday, November 30, 2026 9:14:05 PM") == 1_796_073_245_000)
        #expect(ClippingDate.milliseconds("Monday, November 30, 2026, 12:14 AM") == 1_795_997_640_000)
        #expect(ClippingDate.milliseconds("2026-11-30T21:14:05Z") == 1_796_073_245_000)
        #expect(ClippingDate.milliseconds("2026-11-30 23:14:05+02:00") == 1_796_073_245_000)
        #expect(ClippingDate.milliseconds("2026-11-30T21:14:05.250Z") == 1_796_073_245_250)
        #expect(ClippingDate.milliseconds("Lundi 30 novembre 2026") == nil)
        #expect(ClippingDate.milliseconds("30 Februar") == nil)
    }

    @Test func aClippingWithoutItsDescriptionIsRefusedByLine() throws {
        let text = "Book (Author)\n- Your Highlight Location 1-2 | Added on Monday, 30 November 2026 21:14:05\n\nok\n"
            + "==========\nAnother Book\n==========\n"
        let error = try #require(thrownError(InteropError.self) {
            _ = try KindleClippings.read(Array(text.utf8), file: "bad.txt")
        })
        #expect(error.line == 6)
        #expect(error.description.hasPrefix("bad.txt: line 6: a clipping has a title but no line describing it"))
        let german = "Buch\n- Ihre Markierung bei Position 1-2 | Hinzugefügt am Montag\n\ntext\n==========\n"
        let refused = try #require(thrownError(InteropError.self) {
            _ = try KindleClippings.read(Array(german.utf8), file: "de.txt")
        })
        #expect(refused.line == 2)
        #expect(refused.reason.contains("is not a highlight, note or bookmark"))
        let notUTF8 = try #require(thrownError(InteropError.self) {
            _ = try KindleClippings.read([0x41, 0x0A, 0xC3, 0x28], file: "latin1.txt")
        })
        #expect(notUTF8.reason == "byte 2 is not UTF-8; the file must be UTF-8 text")
        #expect(try KindleClippings.read([], file: "empty.txt").isEmpty)
    }
}
