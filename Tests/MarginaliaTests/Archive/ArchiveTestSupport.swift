import Foundation
import Testing
@testable import Marginalia

/// Fixtures shared by the archive round-trip, refusal and merge tests: content, a populated store, reading and
/// writing archives line by line, and the state that must be equal on every replica.
enum ArchiveFixtures {
    /// Two documents of real Romanian text (NFC, with cedilla and comma-below letters).
    static let source = makeSource([
        ("luceafarul", [
            ("luceafarul.1", "A fost odată ca-n poveşti,"),
            ("luceafarul.2", "A fost ca niciodată,"),
            ("luceafarul.3", "Din rude mari împărăteşti,"),
            ("luceafarul.4", "O prea frumoasă fată."),
        ]),
        ("scrisoarea-i", [
            ("scrisoarea-i.1", "Când cu gene ostenite sara suflu-n lumânare,"),
            ("scrisoarea-i.2", "Doar ceasornicul urmează lung-a vremii cărărare,"),
        ]),
    ])

    /// 2023-11-14T22:13:20.000Z: every test clock starts here, safely in the past of any real clock (restore and
    /// the verifier judge timestamps against the real one).
    static let epoch: Int64 = 1_700_000_000_000

    /// Opens (creating it if needed) the store `name` in `directory` with the fixture content, on `clock`.
    static func store(_ directory: TemporaryDirectory, _ name: String = "user.db", clock: ManualClock) throws
        -> AnnotationStore
    {
        try makeStore(directory, source: source, name: name, wallClock: clock.now)
    }

    /// Two replicas that made the same note ("prima"), then edited it each on its own, `b` ("din b") a second
    /// after `a` ("din a"): whichever side receives the other's edit next keeps `b`'s value, and `a`'s is the one
    /// that lost the merge. Neither has the other's edit yet.
    static func rivalNoteEdits(in directory: TemporaryDirectory) throws -> (a: Replica, b: Replica, id: String) {
        let a = try Replica("a", in: directory, clock: ManualClock(epoch))
        let b = try Replica("b", in: directory, clock: ManualClock(epoch))
        let made = try a.store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.2"), note: "prima")
        try b.importArchive(try a.export())
        a.clock.advance(1000)
        b.clock.advance(2000)
        try a.store.editAnnotation(id: made.id, note: "din a")
        try b.store.editAnnotation(id: made.id, note: "din b")
        return (a, b, made.id)
    }

    /// Gives a store one of everything, one change a second: every kind, notes, colors, tags added and removed,
    /// a multi-passage range, two tombstones, an undelete, and positions in both documents.
    ///
    /// Makes 12 changes: 5 annotations (2 deleted) and 2 positions. Returns the annotation ids in the order made.
    @discardableResult
    static func populate(_ store: AnnotationStore, clock: ManualClock) throws -> [String] {
        func step() { clock.advance(1000) }
        step()
        let first = try store.createAnnotation(
            .highlight, at: AnchorRequest(passage: "luceafarul.1", start: 2, end: 6), note: "început",
            color: "yellow", tags: ["basm", "eminescu"])
        step()
        let note = try store.createAnnotation(
            .note, at: AnchorRequest(passage: "luceafarul.3", quote: "împărăteşti"), note: "rude")
        step()
        let bookmark = try store.createAnnotation(.bookmark, at: AnchorRequest(passage: "scrisoarea-i.1"),
                                                  note: "seara")
        step()
        let span = try store.createAnnotation(
            .highlight, at: AnchorRequest(passage: "luceafarul.2", start: 7, endPassage: "luceafarul.4", endOffset: 6),
            color: "blue")
        step()
        let gone = try store.createAnnotation(.highlight,
                                              at: AnchorRequest(passage: "scrisoarea-i.2", quote: "ceasornicul"))
        step()
        try store.editAnnotation(id: first.id, note: "alt început", addTags: ["luceafărul"], removeTags: ["basm"])
        step()
        try store.deleteAnnotation(id: note.id)
        step()
        try store.deleteAnnotation(id: bookmark.id)
        step()
        try store.undeleteAnnotation(id: bookmark.id)
        step()
        try store.deleteAnnotation(id: gone.id)
        step()
        try store.setPosition(document: "luceafarul", at: TextPosition(passage: "luceafarul.2", offset: 5))
        step()
        try store.setPosition(document: "scrisoarea-i", at: TextPosition(passage: "scrisoarea-i.2", offset: 0))
        return [first.id, note.id, bookmark.id, span.id, gone.id]
    }

    // MARK: - Archives as lines

    /// The decompressed lines of an archive (each without its line feed), as text.
    /// `lines` without the receipt records and the changes' `receipt` (format 4): what an archive of the same
    /// store would hold had it received nothing.
    static func withoutReceipts(_ lines: [String]) -> [String] {
        lines.filter { !$0.hasPrefix(#"{"type":"receipt","#) }.map {
            $0.replacingOccurrences(of: #","receipt":[0-9]+\}$"#, with: "}", options: .regularExpression)
        }
    }

    static func lines(ofArchive path: String) throws -> [String] {
        let bytes = try GzipReader(source: try FileSource(path: path)).readAll()
        #expect(bytes.last == 0x0a, "\(path) does not end with a line feed")
        return bytes.split(separator: 0x0a, omittingEmptySubsequences: false).dropLast()
            .map { String(decoding: $0, as: UTF8.self) }
    }

    /// Writes `lines`, each followed by a line feed (but for the last one when `finalNewline` is false), as a
    /// gzip archive at `path`.
    static func writeArchive(_ lines: [[UInt8]], to path: String, finalNewline: Bool = true) throws {
        var bytes = Array(lines.joined(separator: [0x0a]))
        if finalNewline { bytes.append(0x0a) }
        try writeGzip(bytes, to: path)
    }

    static func writeArchive(_ lines: [String], to path: String, finalNewline: Bool = true) throws {
        try writeArchive(lines.map { Array($0.utf8) }, to: path, finalNewline: finalNewline)
    }

    /// Compresses `bytes` with `GzipWriter` into a file at `path`, replacing it.
    static func writeGzip(_ bytes: [UInt8], to path: String) throws {
        let sink = try FileSink(path: path)
        let writer = try GzipWriter(sink: sink)
        try writer.write(bytes)
        try writer.finish()
        try sink.close()
    }

    /// Writes `bytes` to `path` as they are.
    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func read(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    // MARK: - Hand-made records

    static let device = "dev-hostile"

    /// A header line of the current format.
    static func header(device: String = device, formatVersion: Int = 1, extra: String = "") -> String {
        #"{"type":"header","format":"marginalia-archive","formatVersion":\#(formatVersion),"device":"\#(device)","#
            + #""createdAt":"2023-11-14T22:13:20.000Z","schemaVersion":1,"editions":["test-1"],"#
            + #""partial":false\#(extra)}"#
    }

    /// A trailer line with these counts.
    static func trailer(changes: Int, annotations: Int = 0, positions: Int = 0) -> String {
        #"{"type":"trailer","counts":{"change":\#(changes),"annotation":\#(annotations),"position":\#(positions)}}"#
    }

    /// A change line; `fields` is JSON text.
    static func change(_ id: String, hlc: String = "001700000005000-00000", device: String = device,
                       entity: String = "annotation", entityID: String = "ann-1", op: String = "create",
                       fields: String = createFields(), madeAt: Int64? = nil) -> String {
        let madeAtMember = madeAt.map { #","madeAt":"\#(Timestamp.iso8601(milliseconds: $0))""# } ?? ""
        return #"{"type":"change","changeId":"\#(id)","hlc":"\#(hlc)","device":"\#(device)","entity":"\#(entity)","#
            + #""entityId":"\#(entityID)","op":"\#(op)","fields":\#(fields)\#(madeAtMember)}"#
    }

    /// The fields of a create change of a highlight on the first words of `luceafarul.1`.
    static func createFields(note: String? = nil, offset: String = "0") -> String {
        let noteMember = note.map { #","note":"\#($0)""# } ?? ""
        return #"{"kind":"highlight","document":"luceafarul","start":{"passage":"luceafarul.1","offset":\#(offset)},"#
            + #""end":{"passage":"luceafarul.1","offset":6},"quote":"A fost","prefix":"","suffix":" odată","#
            + #""edition":"test-1"\#(noteMember)}"#
    }

    // MARK: - Replica state

    /// What must be equal on every replica that has seen the same changes.
    struct ReplicaState: Equatable, CustomStringConvertible {
        /// `list --deleted`, in reading order.
        var annotations: [Annotation]
        var positions: [ReadingPosition]
        var changeIDs: Set<String>
        /// The annotations and positions tables (clocks included) and the log without its local sequence
        /// numbers, as bytes: compared byte for byte, since Swift's `String ==` would equate canonically
        /// equivalent spellings that SQLite (and `list --tag`) tell apart.
        var tables: [UInt8]

        var description: String { String(decoding: tables, as: UTF8.self) }
    }

    static func state(of store: AnnotationStore) throws -> ReplicaState {
        ReplicaState(
            annotations: try store.annotations(matching: AnnotationFilter(includeDeleted: true)),
            positions: try store.positions(),
            changeIDs: Set(try store.log().map(\.changeID)),
            tables: try tableDump(store.path))
    }

    /// The tables as text no replica's own numbering shows through: annotations without their row number and with
    /// their clocks decoded (device ids, not this store's device numbers), the log's columns in their text forms.
    private static func tableDump(_ path: String) throws -> [UInt8] {
        let db = try SQLiteDatabase(path: path, mode: .readOnly)
        let devices = try DeviceTable(db)
        var dump: [UInt8] = []
        func line(_ values: [String]) { dump += Array(values.joined(separator: " | ").utf8) + [0x0a] }
        try db.forEachRow(sql: "SELECT * FROM annotations ORDER BY id") { row in
            var values: [String] = []
            for index in 0..<row.count where row.name(at: index) != "number" {
                guard row.name(at: index) == "clocks" else {
                    values.append("\(row.value(at: index))")
                    continue
                }
                let clocks = FieldClocks.decode(Array(row.bytes(at: index)), devices: devices)
                values.append(clocks.map { $0.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.text)" }
                    .joined(separator: ",") } ?? "unreadable clocks")
            }
            line(values)
        }
        try db.forEachRow(sql: "SELECT * FROM positions ORDER BY document") { row in
            line((0..<row.count).map { "\(row.value(at: $0))" })
        }
        try db.forEachRow(sql: "SELECT \(Change.columns) FROM changes ORDER BY change_id") { row in
            line((0..<row.count).map { "\(row.value(at: $0))" })
        }
        return dump
    }
}

/// One machine in a merge test: a store with the fixture content attached, on its own wall clock, that can be
/// closed and reopened and that writes and reads archives in a shared directory.
final class Replica {
    let name: String
    let directory: TemporaryDirectory
    let clock: ManualClock
    private var opened: AnnotationStore?
    private var exports = 0

    init(_ name: String, in directory: TemporaryDirectory, clock: ManualClock) throws {
        self.name = name
        self.directory = directory
        self.clock = clock
        opened = try ArchiveFixtures.store(directory, "\(name).db", clock: clock)
    }

    var store: AnnotationStore { opened! }
    var path: String { directory.path("\(name).db") }

    /// Closes the store and opens it again, as an app restart does.
    func reopen() throws {
        opened = nil
        opened = try ArchiveFixtures.store(directory, "\(name).db", clock: clock)
    }

    /// Exports to a new file in the directory and returns its path.
    func export(_ filter: ExportFilter = ExportFilter()) throws -> String {
        exports += 1
        let path = directory.path("\(name)-\(exports).jsonl.gz")
        try store.exportArchive(toFile: path, filter: filter)
        return path
    }

    @discardableResult
    func importArchive(_ path: String, limits: ArchiveLimits = ArchiveLimits()) throws -> ImportReport {
        try store.importArchive(path: path, limits: limits)
    }

    func state() throws -> ArchiveFixtures.ReplicaState { try ArchiveFixtures.state(of: store) }
}
