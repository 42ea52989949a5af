import Foundation
import Testing
@testable import Marginalia

/// One hostile archive: valid gzip, with lines that must be refused exactly so.
struct HostileArchive: Sendable, CustomTestStringConvertible {
    var name: String
    var lines: [[UInt8]]
    var finalNewline = true
    var line: Int?
    var kind = ArchiveError.Kind.invalidRecord
    var reason: String

    var testDescription: String { name }
}

/// Hostile or malformed records inside an intact gzip stream are refused with the line and the reason, and
/// change nothing (reliability test plan, B.12 and B.13).
@Suite struct ArchiveHostileRecordTests {
    typealias Fixtures = ArchiveFixtures

    static let header = Fixtures.header()
    static let create = Fixtures.change("c-1")
    static let edit = Fixtures.change("c-2", hlc: "001700000006000-00000", op: "edit", fields: #"{"note":"n"}"#)
    /// The state record of what `create` makes.
    static let state = #"{"type":"annotation","id":"ann-1","kind":"highlight","document":"luceafarul","#
        + #""start":{"passage":"luceafarul.1","offset":0},"end":{"passage":"luceafarul.1","offset":6},"#
        + #""quote":"A fost","prefix":"","suffix":" odată","note":null,"color":null,"tags":[],"#
        + #""createdAt":"2023-11-14T22:13:25.000Z","updatedAt":"2023-11-14T22:13:25.000Z","deleted":false,"#
        + #""edition":"test-1","anchorEdition":"test-1"}"#

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// `text` with the first "@@" replaced by `raw` bytes, and the offset where they start.
    static func splice(_ text: String, _ raw: [UInt8]) -> (line: [UInt8], offset: Int) {
        let line = bytes(text)
        let at = line.indices.first { line[$0] == UInt8(ascii: "@") && line[$0 + 1] == UInt8(ascii: "@") }!
        return (Array(line[..<at]) + raw + Array(line[(at + 2)...]), at)
    }

    /// The byte offset of the `occurrence`-th `needle` in `text`.
    static func offset(of needle: String, in text: String, occurrence: Int = 1) -> Int {
        var range = text.startIndex..<text.endIndex
        var found = text.startIndex
        for _ in 0..<occurrence {
            found = text.range(of: needle, range: range)!.lowerBound
            range = text.index(after: found)..<text.endIndex
        }
        return text.utf8.distance(from: text.startIndex, to: found)
    }

    static func json(_ offset: Int, _ reason: String) -> String { "invalid JSON at byte \(offset + 1): \(reason)" }

    static let cases: [HostileArchive] = {
        var cases: [HostileArchive] = []
        /// A header, `change` on line 2, and a trailer counting it.
        func oneChange(_ name: String, _ change: [UInt8], kind: ArchiveError.Kind = .invalidRecord, _ reason: String) {
            cases.append(HostileArchive(name: name, lines: [bytes(header), change, bytes(Fixtures.trailer(changes: 1))],
                                        line: 2, kind: kind, reason: reason))
        }
        func oneChange(_ name: String, _ change: String, _ reason: String) { oneChange(name, bytes(change), reason) }
        func fields(_ name: String, _ fields: String, _ reason: String) {
            oneChange(name, Fixtures.change("c-1", fields: fields), "change record: " + reason)
        }
        func records(_ name: String, _ lines: [String], finalNewline: Bool = true, line: Int?,
                     kind: ArchiveError.Kind = .invalidRecord, _ reason: String) {
            cases.append(HostileArchive(name: name, lines: lines.map(bytes), finalNewline: finalNewline, line: line,
                                        kind: kind, reason: reason))
        }

        // Structure of the JSON itself.
        let deep = Fixtures.change("c-1", op: "edit", fields: #"{"note":"# + String(repeating: "[", count: 100_000)
            + String(repeating: "]", count: 100_000) + "}")
        oneChange("nesting 100 000 deep", deep, json(offset(of: "[", in: deep) + 6, "nesting deeper than 8"))
        let twoTypes = create.replacingOccurrences(of: #"{"type":"change","#,
                                                   with: #"{"type":"change","type":"change","#)
        oneChange("a duplicate key in a record", twoTypes, json(17, #"duplicate key "type""#))
        let twoNotes = Fixtures.change("c-1",
                                       fields: String(Fixtures.createFields(note: "a").dropLast()) + #","note":"b"}"#)
        oneChange("a duplicate key in the fields", twoNotes,
                  json(offset(of: #""note""#, in: twoNotes, occurrence: 2), #"duplicate key "note""#))
        oneChange("a blank line", "", json(0, "empty input"))
        oneChange("a line that is not an object", #"["change"]"#, "a record must be a JSON object")
        oneChange("a record without a type", #"{"changeId":"c-1"}"#, #"the record has no "type""#)
        oneChange("an unknown record type", #"{"type":"bookmark","id":"b-1"}"#, #"unknown record type "bookmark""#)

        // Text.
        let noted = Fixtures.change("c-1", fields: Fixtures.createFields(note: "ab@@cd"))
        for (name, raw, reason) in [
            ("invalid UTF-8", [0xFF], "invalid UTF-8 byte 0xFF"),
            ("an overlong UTF-8 sequence", [0xE0, 0x80, 0xAF], "overlong UTF-8 sequence starting with 0xE0"),
            ("a surrogate encoded in UTF-8", [0xED, 0xA0, 0x80], "UTF-8 encoded surrogate starting with 0xED"),
            ("a truncated UTF-8 sequence", [0xE2, 0x82], "truncated UTF-8 sequence starting with 0xE2"),
            ("a raw NUL in a note", [0x00], "unescaped control character 0x00 in string"),
        ] as [(String, [UInt8], String)] {
            let (line, at) = splice(noted, raw)
            oneChange(name, line, json(at, reason))
        }
        for surrogate in ["d800", "dc00"] {
            let line = noted.replacingOccurrences(of: "@@", with: "\\u" + surrogate)
            oneChange("a lone surrogate \\u\(surrogate)", line,
                      json(offset(of: "\\u", in: line), "lone surrogate \\u\(surrogate)"))
        }
        fields("an escaped NUL in a note", Fixtures.createFields(note: #"a\u0000b"#),
               #"field "fields.note": contains a NUL character"#)
        // The same in a state record, which begins as this project's writer begins one: an import into an empty
        // store compares its text with the rebuilt record's before parsing it, and must refuse it just the same.
        let stated = state.replacingOccurrences(of: #""suffix":" odată""#, with: #""suffix":" od@@ată""#)
        func stateRecord(_ name: String, _ line: [UInt8], _ reason: String) {
            cases.append(HostileArchive(
                name: name, lines: [bytes(header), bytes(create), line,
                                    bytes(Fixtures.trailer(changes: 1, annotations: 1))],
                line: 3, reason: reason))
        }
        for (name, raw, reason) in [
            ("invalid UTF-8 in a state record", [0xFF], "invalid UTF-8 byte 0xFF"),
            ("a truncated UTF-8 sequence in a state record", [0xE2, 0x82],
             "truncated UTF-8 sequence starting with 0xE2"),
            ("a raw NUL in a state record", [0x00], "unescaped control character 0x00 in string"),
        ] as [(String, [UInt8], String)] {
            let (line, at) = splice(stated, raw)
            stateRecord(name, line, json(at, reason))
        }
        stateRecord("a state record cut short", bytes(String(state.dropLast(2))),
                    json(offset(of: #""test-1"#, in: state, occurrence: 2), "unterminated string"))
        let twoKinds = state.replacingOccurrences(of: #""kind":"highlight","#,
                                                  with: #""kind":"note","kind":"highlight","#)
        stateRecord("a duplicate key in a state record", bytes(twoKinds),
                    json(offset(of: #""kind""#, in: twoKinds, occurrence: 2), #"duplicate key "kind""#))
        stateRecord("an unknown kind in a state record",
                    bytes(state.replacingOccurrences(of: #""highlight""#, with: #""scribble""#)),
                    #"annotation record: field "kind": unknown kind "scribble""#)
        // On an even line, which a store with annotations checks on its own thread rather than the reader's.
        let (badByte, at) = splice(stated, [0xFF])
        cases.append(HostileArchive(
            name: "invalid UTF-8 in a state record on an even line",
            lines: [bytes(header), bytes(create), bytes(edit), badByte,
                    bytes(Fixtures.trailer(changes: 2, annotations: 1))],
            line: 4, reason: json(at, "invalid UTF-8 byte 0xFF")))
        records("an unknown kind in a state record on an even line",
                [header, create, edit, state.replacingOccurrences(of: #""highlight""#, with: #""scribble""#),
                 Fixtures.trailer(changes: 2, annotations: 1)],
                line: 4, #"annotation record: field "kind": unknown kind "scribble""#)

        // Numbers.
        let offsetReason = #"field "fields.start.offset": must be an integer from 0 to 2147483647"#
        for number in ["9007199254740993", "-1", "2147483648", "1.0", "18446744073709551616"] {
            fields("offset \(number)", Fixtures.createFields(offset: number), offsetReason)
        }
        let huge = Fixtures.change("c-1", fields: Fixtures.createFields(offset: "1e400"))
        oneChange("offset 1e400", huge, json(offset(of: "1e400", in: huge), "number out of range"))
        oneChange("a negative reading position",
                  Fixtures.change("c-1", entity: "position", entityID: "luceafarul", op: "set",
                                  fields: #"{"passage":"luceafarul.1","offset":-3}"#),
                  #"change record: field "fields.offset": must be an integer from 0 to 2147483647"#)
        records("a trailer count past 2^53",
                [header, create,
                 #"{"type":"trailer","counts":{"change":9007199254740993,"annotation":0,"position":0}}"#],
                line: 3, #"trailer record: field "counts.change": must be a non-negative integer"#)

        // Clocks, kinds and ids.
        oneChange("a malformed clock", Fixtures.change("c-1", hlc: "1700000005000-0"),
                  #"change record: field "hlc": must be a clock like 001795954481123-00000, not "1700000005000-0""#)
        // Made at a plausible time, by its wall clock: it would be merged at once, not held in quarantine.
        oneChange("a clock after the latest the log holds",
                  Fixtures.change("c-1", hlc: "095617584000000-00000", madeAt: Fixtures.epoch + 5000),
                  #"change record: field "hlc": a clock after 4892-10-07T21:52:48.546Z cannot be stored, "#
                    + #"not "095617584000000-00000" (5000-01-01T00:00:00.000Z)"#)
        oneChange("an unknown entity kind", Fixtures.change("c-1", entity: "bookmark-folder"),
                  #"change record: field "entity": unknown entity kind "bookmark-folder" (annotation, position or device)"#)
        oneChange("an unknown operation", Fixtures.change("c-1", op: "merge"),
                  #"change record: field "op": unknown operation "merge""#)
        oneChange("an operation the entity does not have",
                  Fixtures.change("c-1", entity: "position", entityID: "luceafarul"),
                  #"change record: field "fields": operation create does not apply to a position"#)
        oneChange("a device id with a space", Fixtures.change("c-1", device: "dev x"),
                  #"change record: field "device": must be 1 to 64 letters, digits, '.', '_' or '-', not "dev x""#)

        // Unknown fields.
        oneChange("an unknown field on a change", String(create.dropLast()) + #","extra":1}"#,
                  #"change record: field "extra": unknown field"#)
        fields("an unknown field in the fields", String(Fixtures.createFields().dropLast()) + #","colour":"red"}"#,
               #"field "fields.colour": unknown field"#)
        records("an unknown field in the header", [Fixtures.header(extra: #","mood":"calm""#), create,
                                                   Fixtures.trailer(changes: 1)],
                line: 1, #"header record: field "mood": unknown field"#)
        records("an unknown field in a state record",
                [header, create, String(state.dropLast()) + #","pinned":true}"#,
                 Fixtures.trailer(changes: 1, annotations: 1)],
                line: 3, #"annotation record: field "pinned": unknown field"#)

        // Order and completeness.
        records("a change before the header", [create, header, Fixtures.trailer(changes: 1)], line: 1, kind: .corrupt,
                "not a marginalia archive: the first line is not a header")
        records("a second header", [header, header, create, Fixtures.trailer(changes: 1)], line: 2, "a second header")
        records("a change after the state records",
                [header, create, state, edit, Fixtures.trailer(changes: 2, annotations: 1)],
                line: 4, "a change after the state records")
        records("a record after the trailer", [header, create, Fixtures.trailer(changes: 1), edit], line: 4,
                "a record after the trailer")
        records("no trailer", [header, create, edit], line: 3, kind: .truncated,
                "truncated: the trailer (the last line, with the record counts) is missing")
        records("only a header", [header], line: 1, kind: .truncated,
                "truncated: the trailer (the last line, with the record counts) is missing")
        records("a trailer with wrong counts", [header, create, edit, Fixtures.trailer(changes: 3)], line: 4,
                "the trailer counts 3 changes, 0 annotations and 0 positions, but the archive holds 2, 0 and 0")
        records("no final line feed", [header, create, Fixtures.trailer(changes: 1)], finalNewline: false, line: 3,
                kind: .truncated, "truncated: the last line does not end with a line feed")
        let newer = "created by a newer version of marginalia (archive format 5; this version reads up to 4); "
            + "upgrade marginalia to read it"
        records("format version 5", [Fixtures.header(formatVersion: 5), create, Fixtures.trailer(changes: 1)],
                line: 1, kind: .newerVersion, newer)
        records("format version 5 with what only it knows",
                [Fixtures.header(formatVersion: 5, extra: #","compression":"zstd""#), #"{"type":"tombstone-gc"}"#],
                line: 1, kind: .newerVersion, newer)
        let head = #","head":{"seq":0,"digest":"0000000000000000000000000000000000000000000000000000000000000000"}"#
        let receipt = #"{"type":"receipt","id":1,"kind":"import","receivedAt":"2023-11-14T22:13:20.000Z","#
            + #""changesRead":1,"newChanges":1,"duplicates":0,"quarantined":0}"#
        records("a receipt in an archive of format 3",
                [Fixtures.header(formatVersion: 3, extra: head), receipt, create, Fixtures.trailer(changes: 1)],
                line: 2, #"unknown record type "receipt" in an archive of format 3"#)
        records("a receipt after the changes",
                [Fixtures.header(formatVersion: 4, extra: head), create, receipt, Fixtures.trailer(changes: 1)],
                line: 3, "a receipt after the changes")
        records("a change naming a receipt no record declares",
                [Fixtures.header(formatVersion: 4, extra: head),
                 String(create.dropLast()) + #","receipt":7}"#, Fixtures.trailer(changes: 1)],
                line: 2, #"change record: field "receipt": names receipt 7, which no receipt record before the "#
                    + "changes declares")
        records("a change naming a receipt in an archive of format 3",
                [Fixtures.header(formatVersion: 3, extra: head),
                 String(create.dropLast()) + #","receipt":1}"#, Fixtures.trailer(changes: 1)],
                line: 2, #"change record: field "receipt": unknown field"#)
        records("a receipt of an unknown kind",
                [Fixtures.header(formatVersion: 4, extra: head), receipt.replacingOccurrences(of: "import", with: "ftp"),
                 create, Fixtures.trailer(changes: 1)],
                line: 2, #"receipt record: field "kind": unknown receipt kind "ftp""#)
        records("format version 0", [Fixtures.header(formatVersion: 0), create, Fixtures.trailer(changes: 1)],
                line: 1, #"header record: field "formatVersion": must be a positive integer"#)
        return cases
    }()

    @Test(arguments: cases)
    func isRefusedExactly(_ hostile: HostileArchive) throws {
        let target = try RefusalTarget()
        let path = target.path("hostile.jsonl.gz")
        try Fixtures.writeArchive(hostile.lines, to: path, finalNewline: hostile.finalNewline)
        target.expectRefused(path,
                             ArchiveError(file: path, line: hostile.line, kind: hostile.kind, reason: hostile.reason))
    }

    /// An empty store checks the state records against the state the changes rebuild, and reads an annotation's
    /// record by its text first: it refuses every hostile archive exactly as a store that has annotations does.
    @Test(arguments: cases)
    func isRefusedExactlyByAnEmptyStore(_ hostile: HostileArchive) throws {
        let target = try RefusalTarget(populated: false)
        let path = target.path("hostile.jsonl.gz")
        try Fixtures.writeArchive(hostile.lines, to: path, finalNewline: hostile.finalNewline)
        target.expectRefused(path,
                             ArchiveError(file: path, line: hostile.line, kind: hostile.kind, reason: hostile.reason))
        #expect(try target.store.changeCount() == 0)
    }

    @Test func theBaseOfTheHostileArchivesIsValid() throws {
        let target = try RefusalTarget()
        let path = target.path("valid.jsonl.gz")
        try Fixtures.writeArchive([Self.header, Self.create, Self.edit, Self.state,
                                   Fixtures.trailer(changes: 2, annotations: 1)], to: path)
        let report = try target.store.importArchive(path: path)
        #expect(report.newChanges == 2 && report.annotationsCreated == 1 && report.updates == 1)
        #expect(try target.store.annotation(id: "ann-1").note == "n")
    }

    @Test func anEmptyGzipStreamIsRefused() throws {
        let target = try RefusalTarget()
        let path = target.path("empty-stream.jsonl.gz")
        try Fixtures.writeGzip([], to: path)
        target.expectRefused(path, ArchiveError(file: path, kind: .truncated,
                                                reason: "truncated: the archive holds no records"))
    }

    // MARK: - Against the store

    @Test func aChangeIDTheStoreHoldsWithOtherContentIsAConflict() throws {
        let target = try RefusalTarget()
        let existing = try #require(try target.store.log().first)
        let path = target.path("conflict.jsonl.gz")
        let fields = try existing.fields.jsonText()
        // The same change, byte for byte, is a duplicate; with another clock it contradicts the store.
        try Fixtures.writeArchive([Self.header, Fixtures.change(existing.changeID, hlc: existing.hlc.description,
                                                                device: existing.device, entityID: existing.entityID,
                                                                fields: fields, madeAt: existing.wall),
                                   Fixtures.trailer(changes: 1)], to: path)
        #expect(try target.store.importArchive(path: path).duplicates == 1)
        target.expectUnchanged()
        try Fixtures.writeArchive([Self.header, Self.create,
                                   Fixtures.change(existing.changeID, device: existing.device,
                                                   entityID: existing.entityID, fields: fields),
                                   Fixtures.trailer(changes: 2)], to: path)
        target.expectRefused(path, ArchiveError(
            file: path, line: 3, kind: .conflict,
            reason: "change \(existing.changeID) differs from the change with the same id already in the store"))
    }

    @Test func theSameChangeTwiceInOneFileIsADuplicateButWithOtherContentAConflict() throws {
        let target = try RefusalTarget()
        let path = target.path("twice.jsonl.gz")
        try Fixtures.writeArchive([Self.header, Self.create, Self.create, Fixtures.trailer(changes: 2)], to: path)
        let report = try target.store.importArchive(path: path, dryRun: true)
        #expect(report.newChanges == 1 && report.duplicates == 1 && report.annotationsCreated == 1)
        target.expectUnchanged()
        let other = Fixtures.change("c-1", fields: Fixtures.createFields(note: "b"))
        try Fixtures.writeArchive([Self.header, Self.create, other, Fixtures.trailer(changes: 2)], to: path)
        target.expectRefused(path, ArchiveError(
            file: path, line: 3, kind: .conflict,
            reason: "change c-1 differs from the change with the same id already in the store"))
    }

    @Test func anEditOfAnAnnotationNotYetSeenWaitsForItsCreate() throws {
        let target = try RefusalTarget()
        let path = target.path("orphan-edit.jsonl.gz")
        try Fixtures.writeArchive([Self.header, Self.edit, Fixtures.trailer(changes: 1)], to: path)
        let report = try target.store.importArchive(path: path)
        #expect(report.newChanges == 1 && report.pending == 1 && report.updates == 0)
        #expect(try target.store.annotations(matching: AnnotationFilter(includeDeleted: true)).count == 5)
        try Fixtures.writeArchive([Self.header, Self.create, Fixtures.trailer(changes: 1)], to: path)
        #expect(try target.store.importArchive(path: path).annotationsCreated == 1)
        #expect(try target.store.annotation(id: "ann-1").note == "n")
        #expect(try target.store.verify().problems == [])
    }

    /// A change from the future, held in quarantine, leaves an empty store's state unchecked: the state records
    /// are then checked on their own, as reading them would, and a bad one is still refused.
    @Test func aBadStateRecordIsRefusedWhenAQuarantinedChangeLeavesTheStateUnchecked() throws {
        let target = try RefusalTarget(populated: false)
        let path = target.path("future.jsonl.gz")
        let future = HLC(milliseconds: Fixtures.epoch + 30 * 86_400_000, counter: 0)
        let unknownKind = Self.state.replacingOccurrences(of: #""highlight""#, with: #""scribble""#)
        let lines = [Self.header, Self.create, Fixtures.change("c-9", hlc: future.description, entityID: "ann-9"),
                     unknownKind, Fixtures.trailer(changes: 2, annotations: 1)]
        try Fixtures.writeArchive(lines, to: path)
        target.expectRefused(path, ArchiveError(file: path, line: 4, kind: .invalidRecord,
                                                reason: #"annotation record: field "kind": unknown kind "scribble""#))
        // With the record good, the file is imported and the future change held.
        try Fixtures.writeArchive(lines.enumerated().map { $0.offset == 3 ? Self.state : $0.element }, to: path)
        let report = try target.store.importArchive(path: path)
        #expect(report.quarantined == 1 && report.newChanges == 1)
    }

    @Test func theClockDriftCapIsExact() throws {
        let target = try RefusalTarget()
        let now = Fixtures.epoch + 12_000
        let path = target.path("drift.jsonl.gz")
        let day: Int64 = 86_400_000
        let late = HLC(milliseconds: now + day + 1, counter: 0)
        try Fixtures.writeArchive([Self.header, Fixtures.change("c-1", hlc: late.description),
                                   Fixtures.trailer(changes: 1)], to: path)
        // One millisecond past a day ahead: held in quarantine, not merged (a dry run writes nothing).
        let held = try target.store.importArchive(path: path, dryRun: true)
        #expect(held.quarantined == 1 && held.newChanges == 0 && held.changesRead == 1)
        // A larger cap lets it in; exactly one day ahead is within the default.
        #expect(try target.store.importArchive(path: path, dryRun: true,
                                               limits: ArchiveLimits(maxClockDrift: 2 * day)).newChanges == 1)
        let aDayAhead = HLC(milliseconds: now + day, counter: 0)
        try Fixtures.writeArchive([Self.header, Fixtures.change("c-1", hlc: aDayAhead.description),
                                   Fixtures.trailer(changes: 1)], to: path)
        let report = try target.store.importArchive(path: path)
        #expect(report.newChanges == 1 && report.quarantined == 0)
        #expect(try target.store.quarantinedChanges().isEmpty)
    }
}
