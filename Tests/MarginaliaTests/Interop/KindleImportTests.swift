import Foundation
import Testing
@testable import Marginalia

@Suite struct KindleImportTests {
    /// A store with the sample content's given edition attached.
    func store(edition: Int, in directory: TemporaryDirectory) throws -> AnnotationStore {
        let store = try makeStore(directory)
        try store.attachContent(path: try SampleContent.shared.path(edition: edition))
        return store
    }

    func importRomanian(into store: AnnotationStore, keepUnmatched: Bool = false, dryRun: Bool = false) throws
        -> InteropImportReport
    {
        let items = try KindleClippings.read(try InteropFixtures.romanianClippings, file: "My Clippings.txt")
        return try store.importItems(items, format: .kindle,
                                     options: InteropImportOptions(keepUnmatched: keepUnmatched, dryRun: dryRun))
    }

    @Test func romanianClippingsWithTheOlderLettersLandOnTheirPassages() throws {
        let directory = try TemporaryDirectory()
        let store = try store(edition: 2, in: directory)
        let report = try importRomanian(into: store)
        #expect(report.itemsRead == 10)
        #expect(report.created == 7)
        #expect(report.anchored == 5)
        #expect(report.orphaned == 2)
        #expect(report.notesOnHighlights == 1)
        #expect(report.resized == 1)
        #expect(report.unmatchedItems == 1)
        #expect(report.unmatchedBooks == [UnmatchedBook(title: "Dubliners", author: "James Joyce", items: 1)])

        let anchored = try store.annotations().filter { !$0.anchor.start.passage.hasPrefix("kindle:") }
        let placed = anchored.map { "\($0.anchor.start)-\($0.anchor.end)" }
        #expect(placed == ["mai-am-un-singur-dor.1:0-mai-am-un-singur-dor.2:17", "scrisoarea-i.7:0-scrisoarea-i.8:47",
                           "scrisoarea-i.10:0-scrisoarea-i.10:52", "scrisoarea-i.20:0-scrisoarea-i.20:49",
                           "scrisoarea-i.22:0-scrisoarea-i.22:49"])
        // The content's own text: comma-below letters, its punctuation, passages joined by a line feed.
        #expect(anchored.map(\.anchor.quote) == [
            "Mai am un singur dor:\nÎn liniștea serii",
            "Lună tu, stăpân-a mării, pe a lumii boltă luneci\nȘi gândirilor dând viață, suferințele întuneci;",
            "Și câți codri-ascund în umbră strălucire de izvoară!",
            "Deopotrivă-i stăpânește raza ta și geniul morții;",
            "Fie slabi, fie puternici, fie genii ori neghiobi!",
        ])
        #expect(anchored.allSatisfy { $0.anchor.edition == "eminescu-2026.2" && $0.kind == .highlight })
        let checks = try store.checkAnchors(anchored)
        #expect(checks.allSatisfy { $0.status == .intact })

        // The resized highlight is one annotation with the later text, its note, and the resize as an edit.
        let resized = try #require(anchored.first { $0.anchor.start.passage == "scrisoarea-i.7" })
        #expect(resized.note == "luna, stăpâna mării şi a gândurilor")
        let history = try store.history(id: resized.id)
        #expect(history.map(\.operation) == [.create, .reattach, .edit])
        #expect(history[0].fields.anchor?.quote == "Și gândirilor dând viață, suferințele întuneci;"
            || history[0].fields.anchor?.quote == "Lună tu, stăpân-a mării, pe a lumii boltă luneci")
        #expect(history.map(\.device) == ["import-kindle", "import-kindle", "import-kindle"])
        #expect(history[0].hlc.milliseconds == ClippingDate.milliseconds("Monday, 30 November 2026 21:14:05"))

        // Kept, never dropped: the bookmark and the text found in two places are orphans with title and location.
        let orphans = try store.checkAnchors(try store.annotations()).filter { $0.status == .orphaned }
            .map(\.annotation)
        #expect(orphans.map(\.kind) == [.bookmark, .highlight])
        #expect(orphans.map(\.anchor.start.passage) == ["kindle:page 30, location 412 of Poezii (Mihai Eminescu)",
                                                         "kindle:page 58, location 700 of Poezii (Mihai Eminescu)"])
        #expect(orphans.map(\.anchor.document) == ["kindle:Poezii (Mihai Eminescu)", "kindle:Poezii (Mihai Eminescu)"])
        #expect(orphans[1].anchor.quote == "Sara pe deal")
        // Nothing of the other book.
        #expect(try store.annotations().allSatisfy { !$0.anchor.quote.contains("illumined") })
        #expect(try store.verify().problems.isEmpty)
    }

    @Test func aSecondImportAddsNothing() throws {
        let directory = try TemporaryDirectory()
        let store = try store(edition: 2, in: directory)
        _ = try importRomanian(into: store)
        let before = try canonicalDump(directory.path("user.db"))
        let again = try importRomanian(into: store)
        #expect(again.created == 0 && again.updated == 0 && again.orphaned == 0)
        #expect(again.duplicates == 7)
        #expect(again.merge.newChanges == 0)
        #expect(again.merge.duplicates == 9)
        #expect(try canonicalDump(directory.path("user.db")) == before)
    }

    @Test func aFileThatGrewAddsOnlyWhatIsNew() throws {
        let directory = try TemporaryDirectory()
        let store = try store(edition: 2, in: directory)
        let text = String(decoding: try InteropFixtures.romanianClippings, as: UTF8.self)
        let clippings = text.components(separatedBy: "==========\r\n").filter { !$0.isEmpty }
        // The highlight alone first; then the whole file, with its resize and its note.
        let first = try KindleClippings.read(Array((clippings[0] + "==========\r\n").utf8), file: "old")
        #expect(try store.importItems(first, format: .kindle).created == 1)
        let all = try KindleClippings.read(Array(text.utf8), file: "new")
        let report = try store.importItems(all, format: .kindle)
        #expect(report.created == 6)
        #expect(report.updated == 1)
        #expect(report.duplicates == 0)
        #expect(try store.annotations().count == 7)
    }

    @Test func theCedillaLettersOfEditionOneAreFoundFromCommaBelowToo() throws {
        let directory = try TemporaryDirectory()
        let store = try store(edition: 1, in: directory)
        let modern = String(decoding: try InteropFixtures.romanianClippings, as: UTF8.self)
            .replacingOccurrences(of: "ş", with: "ș").replacingOccurrences(of: "ţ", with: "ț")
        let items = try KindleClippings.read(Array(modern.utf8), file: "modern.txt")
        let report = try store.importItems(items, format: .kindle)
        // Edition 1 has "Sara pe deal" once as it is (the other poem's first line is spelled otherwise there).
        #expect(report.anchored == 6)
        let quotes = try store.annotations().map(\.anchor.quote)
        #expect(quotes.contains("Şi câţi codri-ascund în umbră strălucire de izvoară!"))
        #expect(quotes.contains("Sara pe deal"))
        #expect(quotes.contains("Mai am un singur dor:\nÎn liniştea serii"))
    }

    @Test func unmatchedBooksAreImportedOnlyWhenAsked() throws {
        let directory = try TemporaryDirectory()
        let store = try store(edition: 2, in: directory)
        let report = try importRomanian(into: store, keepUnmatched: true)
        #expect(report.created == 8)
        #expect(report.orphaned == 3)
        #expect(report.keptUnmatched)
        let dubliners = try #require(try store.annotations().first { $0.anchor.quote.contains("illumined") })
        #expect(dubliners.anchor.document == "kindle:Dubliners (James Joyce)")
        #expect(dubliners.anchor.start.passage == "kindle:page 3, location 563-564 of Dubliners (James Joyce)")
        #expect(try store.checkAnchors([dubliners]).first?.status == .orphaned)
        // An orphan can be re-attached by hand.
        let reattached = try store.reattachAnnotation(
            id: dubliners.id, at: AnchorRequest(passage: "scrisoarea-i.1", start: 0, end: 4))
        #expect(reattached.anchor.quote == "Când")
    }

    @Test func aDryRunChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let store = try store(edition: 2, in: directory)
        let before = try canonicalDump(directory.path("user.db"))
        let report = try importRomanian(into: store, dryRun: true)
        #expect(report.created == 7)
        #expect(try canonicalDump(directory.path("user.db")) == before)
        #expect(try store.annotations().isEmpty)
    }

    @Test(arguments: InteropFixtures.kindleFiles)
    func everyPeerFileImportsAndAgainAddsNothing(_ name: String) throws {
        let directory = try TemporaryDirectory()
        let store = try store(edition: 2, in: directory)
        let items = try KindleClippings.read(InteropFixtures.asDeviceWrites(try InteropFixtures.kindle(name)),
                                             file: name)
        let skipped = try store.importItems(items, format: .kindle)
        #expect(skipped.created == 0)
        #expect(skipped.unmatchedItems == items.count)
        let kept = try store.importItems(items, format: .kindle, options: InteropImportOptions(keepUnmatched: true))
        #expect(kept.created > 0)
        #expect(kept.orphaned == kept.created)
        let again = try store.importItems(items, format: .kindle, options: InteropImportOptions(keepUnmatched: true))
        #expect(again.created == 0 && again.updated == 0)
        #expect(again.duplicates == kept.created)
    }

    @Test func theTouchNoteIsNotPutOnAnotherBooksHighlight() throws {
        let directory = try TemporaryDirectory()
        let store = try store(edition: 2, in: directory)
        let items = try KindleClippings.read(try InteropFixtures.kindle("touch_clippings.txt"), file: "touch")
        let report = try store.importItems(items, format: .kindle, options: InteropImportOptions(keepUnmatched: true))
        #expect(report.notesOnHighlights == 0)
        #expect(try store.annotations().map(\.kind).sorted { $0.rawValue < $1.rawValue } == [.highlight, .note])
    }

    @Test func foreignItemsNeedContent() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory)
        let items = try KindleClippings.read(try InteropFixtures.romanianClippings, file: "c.txt")
        let error = try #require(thrownError(StoreError.self) { _ = try store.importItems(items, format: .kindle) })
        #expect(error == .contentUnavailable(reason: "no content is attached"))
    }

    @Test func anImportIsPlannedWithoutTheWriterAndPlanningTwiceGivesTheSameChanges() throws {
        let directory = try TemporaryDirectory()
        let store = try store(edition: 2, in: directory)
        let items = try KindleClippings.read(try InteropFixtures.romanianClippings, file: "My Clippings.txt")
        // Another thread holds the writer (a batch, as a long import's merge would) while this one plans.
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        Thread {
            _ = try? store.batch {
                holding.signal()
                release.wait()
            }
        }.start()
        holding.wait()
        let plan = try store.engine.reading {
            try InteropImporter(store: $0).planImport(items, format: .kindle, options: InteropImportOptions())
        }
        let again = try store.engine.reading {
            try InteropImporter(store: $0).planImport(items, format: .kindle, options: InteropImportOptions())
        }
        release.signal()
        let planned = try plan.annotations()
        #expect(planned.count == 7)
        #expect(planned.map(\.changes) == (try again.annotations()).map(\.changes))
        // Merged, the plan is what importing the items makes.
        let report = try store.importItems(items, format: .kindle)
        #expect(report.created == 7)
        #expect(Set(try store.annotations().map(\.id)) == Set(planned.map(\.id)))
    }
}
