import Foundation
import Testing
@testable import Marginalia
import MarginaliaTestSupport

/// A populated store that a refused file must leave exactly as it was: same canonical dump, same device id.
final class RefusalTarget {
    let directory: TemporaryDirectory
    let clock = ManualClock(ArchiveFixtures.epoch)
    let store: AnnotationStore
    let dump: String
    /// A second connection: its `PRAGMA data_version` changes if, and only if, another connection commits.
    /// "The integer values returned by two invocations of "PRAGMA data_version" from the same connection will be
    /// different if changes were committed to the database by any other connection in the interim."
    /// https://www.sqlite.org/pragma.html#pragma_data_version
    private let watcher: SQLiteDatabase
    private let version: Int64?

    /// A store with `ArchiveFixtures.populate`'s annotations, or an empty one (`populated` false), whose import
    /// checks an archive's state records against the state its changes rebuild.
    init(populated: Bool = true) throws {
        directory = try TemporaryDirectory()
        store = try ArchiveFixtures.store(directory, "target.db", clock: clock)
        if populated { try ArchiveFixtures.populate(store, clock: clock) }
        dump = try canonicalDump(store.path)
        watcher = try SQLiteDatabase(path: store.path, mode: .readOnly)
        version = try watcher.int(sql: "PRAGMA data_version")
    }

    /// Whether anything was committed to the store since it was populated: a cheap, strict "unchanged" for the
    /// thousands of imports of a sweep, which also compare the full dump now and then.
    func hasCommitted() throws -> Bool {
        try watcher.int(sql: "PRAGMA data_version") != version
    }

    func path(_ name: String) -> String { directory.path(name) }

    /// Imports `path` expecting exactly `expected`, then checks that nothing changed.
    func expectRefused(_ path: String, _ expected: ArchiveError, _ comment: Comment? = nil,
                       limits: ArchiveLimits = ArchiveLimits(), sourceLocation: SourceLocation = #_sourceLocation) {
        let device = store.deviceID
        #expect(throws: MarginaliaError(expected), comment, sourceLocation: sourceLocation) {
            try store.importArchive(path: path, limits: limits)
        }
        expectUnchanged(comment, device: device, sourceLocation: sourceLocation)
    }

    func expectUnchanged(_ comment: Comment? = nil, device: String? = nil,
                         sourceLocation: SourceLocation = #_sourceLocation) {
        #expect((try? canonicalDump(store.path)) == dump, comment, sourceLocation: sourceLocation)
        #expect(store.deviceID == (device ?? store.deviceID), comment, sourceLocation: sourceLocation)
    }
}

/// Truncated, bit-flipped, foreign and oversized files are refused and change nothing (reliability test plan,
/// B.8 to B.11). Hostile records inside valid gzip are in `ArchiveHostileRecordTests`.
@Suite struct ArchiveRefusalTests {
    typealias Fixtures = ArchiveFixtures

    static let truncated = "truncated: the file ends before the end of the compressed stream"

    /// A small archive from another device: a highlight, an edit and a reading position (3 changes).
    static func smallArchive(in directory: TemporaryDirectory) throws -> [UInt8] {
        let clock = ManualClock(ArchiveFixtures.epoch + 500)
        let store = try Fixtures.store(directory, "small.db", clock: clock)
        let made = try store.createAnnotation(
            .highlight, at: AnchorRequest(passage: "luceafarul.3", quote: "rude mari"), note: "neam", tags: ["x"])
        clock.advance(10)
        try store.editAnnotation(id: made.id, color: "red")
        try store.setPosition(document: "luceafarul", at: TextPosition(passage: "luceafarul.4", offset: 3))
        let sink = ByteArraySink()
        try store.exportArchive(to: sink, createdAt: "2023-11-14T22:13:20.000Z")
        return sink.bytes
    }

    // MARK: - Truncation

    @Test func everyPrefixOfASmallArchiveIsRefused() throws {
        let target = try RefusalTarget()
        let archive = try Self.smallArchive(in: target.directory)
        let path = target.path("prefix.jsonl.gz")
        try Self.sweepPrefixes(archive, lengths: Array(0..<archive.count), at: path) { length in
            target.expectRefused(path, Self.prefixRefusal(length, path),
                                 "prefix of \(length) of \(archive.count) bytes")
        }
        // The whole file is accepted and changes the store: the checks above could fail.
        try Fixtures.write(archive, to: path)
        #expect(try target.store.importArchive(path: path).newChanges == 3)
        #expect(try canonicalDump(target.store.path) != target.dump)
        #expect(try target.hasCommitted())
    }

    /// The refusal of the first `length` bytes of an archive.
    static func prefixRefusal(_ length: Int, _ path: String) -> ArchiveError {
        length == 0
            ? ArchiveError(file: path, kind: .corrupt, reason: "empty file")
            : ArchiveError(file: path, kind: .truncated, reason: truncated)
    }

    /// Writes `archive` to `path`, then cuts it to each length, longest first, calling `body` after each cut.
    static func sweepPrefixes(_ archive: [UInt8], lengths: [Int], at path: String,
                              _ body: (Int) throws -> Void) throws {
        try Fixtures.write(archive, to: path)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        for length in lengths.sorted(by: >) {
            try handle.truncate(atOffset: UInt64(length))
            try body(length)
        }
    }

    @Test func sampledPrefixesOfALargerArchiveAreRefused() throws {
        let seed = TestSeed.seed()
        var generator = SeededGenerator(seed: seed)
        let target = try RefusalTarget()
        // Notes of random letters compress poorly: the archive spans several deflate blocks.
        let clock = ManualClock(ArchiveFixtures.epoch + 500)
        let source = try Fixtures.store(target.directory, "large.db", clock: clock)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzăâîşţ ")
        for index in 0..<10 {
            let note = String((0..<2_400).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
            try source.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.\(index % 4 + 1)"), note: note)
        }
        let largePath = target.path("large.jsonl.gz")
        try source.exportArchive(toFile: largePath)
        let archive = try Fixtures.read(largePath)
        try #require(archive.count > 16_000, "seed \(seed)")
        var lengths = Array(0..<64) + Array(archive.count - 64..<archive.count)
        lengths += (0..<300).map { _ in Int.random(in: 64..<archive.count - 64, using: &generator) }
        let path = target.path("prefix.jsonl.gz")
        try Self.sweepPrefixes(archive, lengths: lengths, at: path) { length in
            target.expectRefused(path, Self.prefixRefusal(length, path),
                                 "prefix of \(length) of \(archive.count) bytes, seed \(seed)")
        }
    }

    // MARK: - Bit flips

    /// Flips every bit of a small archive. A flip that still inflates must give the very same text (zlib checks
    /// the CRC-32 and length) and then import exactly as the clean file does: that is always so for MTIME (bytes
    /// 4-7), XFL (8), OS (9), FTEXT (bit 0 of FLG) and the padding bits after the last deflate block, and now
    /// and then for a match distance that comes to point at an identical earlier copy of the text. Every other
    /// flip is refused with an `ArchiveError` and leaves the store unchanged.
    @Test func everyBitFlipIsRefusedOrImportsExactlyAsTheCleanFile() throws {
        let directory = try TemporaryDirectory()
        let archive = try Self.smallArchive(in: directory)
        let plain = try GzipReader(source: ByteArraySource(archive)).readAll()
        // A closed template of the target store, copied for each flip that inflates.
        let clock = ManualClock(ArchiveFixtures.epoch)
        try Fixtures.populate(try Fixtures.store(directory, "template.db", clock: clock), clock: clock)
        func copyOfTemplate(_ name: String) throws -> AnnotationStore {
            try FileManager.default.copyItem(atPath: directory.path("template.db"), toPath: directory.path(name))
            return try Fixtures.store(directory, name, clock: clock)
        }
        let path = directory.path("flipped.jsonl.gz")
        try Fixtures.write(archive, to: path)
        let clean = try copyOfTemplate("clean.db")
        let cleanReport = try clean.importArchive(path: path)
        #expect(cleanReport.newChanges == 3)
        // The receipt records the file as read: a flipped bit that changes nothing else still changes its SHA-256.
        let cleanDump = try canonicalDump(clean.path, except: ["receipts"])

        let target = try copyOfTemplate("target.db")
        let before = try canonicalDump(target.path)
        // See `RefusalTarget.hasCommitted`.
        let watcher = try SQLiteDatabase(path: target.path, mode: .readOnly)
        let version = try watcher.int(sql: "PRAGMA data_version")
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? file.close() }
        let lastDeflateByte = archive.count - 9
        var paddingBits: [Int] = []
        var aliases: [String] = []
        var refusals: [ArchiveError.Kind: Int] = [:]
        for index in archive.indices {
            for bit in 0..<8 {
                var flipped = archive
                flipped[index] ^= UInt8(1) << bit
                try file.seek(toOffset: UInt64(index))
                try file.write(contentsOf: [flipped[index]])
                let place = "byte \(index) bit \(bit) of \(archive.count)"
                let ignored = (4...9).contains(index) || (index == 3 && bit == 0)
                if let inflated = try? GzipReader(source: ByteArraySource(flipped)).readAll() {
                    #expect(inflated == plain, "\(place)")
                    let copy = try copyOfTemplate("flip-\(index)-\(bit).db")
                    #expect(try copy.importArchive(path: path) == cleanReport, "\(place)")
                    #expect(try canonicalDump(copy.path, except: ["receipts"]) == cleanDump, "\(place)")
                    #expect(try copy.receipts().map(\.sha256) == [try SHA256Digest.hex(of: flipped)], "\(place)")
                    if index == lastDeflateByte { paddingBits.append(bit) } else if !ignored { aliases.append(place) }
                } else {
                    #expect(!ignored, "\(place): zlib refused a bit it ignores")
                    do {
                        _ = try target.importArchive(path: path)
                        Issue.record("\(place) was accepted though it does not inflate")
                        return
                    } catch let wrapped as MarginaliaError {
                        guard let error = wrapped.underlyingError as? ArchiveError else {
                            Issue.record("\(place): refused with \(wrapped), not an ArchiveError")
                            continue
                        }
                        refusals[error.kind, default: 0] += 1
                        #expect(error.file == path, "\(place)")
                        if index >= archive.count - 8 {
                            let reason = index >= archive.count - 4
                                ? "corrupt archive: the length in the gzip trailer does not match the data "
                                    + "(incorrect length check)"
                                : "corrupt archive: the CRC-32 in the gzip trailer does not match the data "
                                    + "(incorrect data check)"
                            #expect(error == ArchiveError(file: path, kind: .corrupt, reason: reason), "\(place)")
                        }
                    } catch {
                        Issue.record("\(place): refused with \(type(of: error)), not an ArchiveError: \(error)")
                    }
                    #expect(try watcher.int(sql: "PRAGMA data_version") == version, "\(place)")
                    if bit == 0 && index % 16 == 0 { #expect(try canonicalDump(target.path) == before, "\(place)") }
                }
                try file.seek(toOffset: UInt64(index))
                try file.write(contentsOf: [archive[index]])
            }
        }
        #expect(try canonicalDump(target.path) == before)
        // Deflate fills bytes from the least significant bit, so the unused bits are the top ones of the last
        // byte, and the final block uses at least its lowest bit.
        #expect(paddingBits.count < 8 && paddingBits == Array(8 - paddingBits.count..<8), "\(paddingBits)")
        // Aliased distances are rare: a handful of the ~5000 flips.
        #expect(aliases.count <= 8, "\(aliases)")
        // Most flips break the deflate stream at once (corrupt); a few first inflate into a bad record, and how
        // many depends on the random ids the archive holds (now and then none), so only the first is required.
        #expect((refusals[.corrupt] ?? 0) > 0, "\(refusals)")
        #expect(refusals.keys.allSatisfy { [.corrupt, .truncated, .invalidRecord].contains($0) }, "\(refusals)")
        // The watcher does see a commit: the clean file, imported into the target.
        try file.close()
        _ = try target.importArchive(path: path)
        #expect(try watcher.int(sql: "PRAGMA data_version") != version)
    }

    // MARK: - Wrong containers

    @Test func wrongContainersAreRefusedByName() throws {
        let target = try RefusalTarget()
        let archive = try Self.smallArchive(in: target.directory)
        func refused(_ name: String, _ bytes: [UInt8], _ reason: String, kind: ArchiveError.Kind = .corrupt) throws {
            let path = target.path(name)
            try Fixtures.write(bytes, to: path)
            target.expectRefused(path, ArchiveError(file: path, kind: kind, reason: reason), "\(name)")
        }
        try refused("garbage.jsonl.gz", archive + Array("garbage\n".utf8),
                    "trailing data after the end of the compressed stream")
        let second = ByteArraySink()
        try Fixtures.store(target.directory, "second.db", clock: ManualClock(ArchiveFixtures.epoch))
            .exportArchive(to: second)
        try refused("two-members.jsonl.gz", archive + second.bytes,
                    "trailing data after the end of the compressed stream: a second gzip member")
        let plain = try GzipReader(source: ByteArraySource(archive)).readAll()
        try refused("plain.jsonl", plain, "uncompressed JSON: archives are gzip-compressed")
        try refused("empty.jsonl.gz", [], "empty file")
        try refused("zip-header.zip", [0x50, 0x4b, 3, 4, 20, 0, 0, 0, 8, 0] + Array(repeating: 0, count: 20),
                    "this is a zip file, not an archive: archives are gzip-compressed")
        // The user's own store, picked by mistake (it is open, in WAL mode).
        target.expectRefused(target.store.path, ArchiveError(file: target.store.path, kind: .corrupt,
                                                             reason: "this is an SQLite database, not an archive"))
        let missing = target.path("missing.jsonl.gz")
        let noFile = ArchiveError(file: missing, io: IOError.posix("open", path: missing, code: ENOENT))
        #expect(noFile.description == "\(missing): cannot open \(missing): No such file or directory")
        #expect(MarginaliaError(noFile).errno == ENOENT)
        target.expectRefused(missing, noFile)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/zip")))
    func aRealZipOfAnArchiveIsRefused() throws {
        let target = try RefusalTarget()
        let inner = target.path("export.jsonl.gz")
        try Fixtures.write(try Self.smallArchive(in: target.directory), to: inner)
        let zip = target.path("export.zip")
        let process = try Process.run(URL(fileURLWithPath: "/usr/bin/zip"), arguments: ["-q", "-j", zip, inner])
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        target.expectRefused(zip, ArchiveError(
            file: zip, kind: .corrupt, reason: "this is a zip file, not an archive: archives are gzip-compressed"))
    }

    // MARK: - Oversized input

    /// A header line, then 256 MiB of zeros, compressed as they stream through one buffer; the CRC-32 in the
    /// gzip trailer is wrong, so a reader that went to the end would report that instead of its cap.
    static func zeroBomb(at path: String) throws {
        let sink = ByteArraySink()
        let writer = try GzipWriter(sink: sink, level: 1)
        try writer.write(ArchiveFixtures.header() + "\n")
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        for _ in 0..<256 { try writer.write(zeros) }
        try writer.finish()
        var bomb = sink.bytes
        bomb[bomb.count - 8] ^= 0xff
        try ArchiveFixtures.write(bomb, to: path)
    }

    @Test func aDecompressionBombStopsAtTheCaps() throws {
        let target = try RefusalTarget()
        let path = target.path("bomb.jsonl.gz")
        try Self.zeroBomb(at: path)
        #expect(try Fixtures.read(path).count < 2 << 20)
        let capped = ArchiveError(file: path, kind: .tooLarge, reason: "decompressed size exceeds 4194304 bytes")
        target.expectRefused(path, capped,
                             limits: ArchiveLimits(maxDecompressedBytes: 4 << 20, maxLineBytes: 64 << 20))
        // With the default limits (8 GiB), the 16 MiB line cap stops it.
        target.expectRefused(path, ArchiveError(file: path, line: 2, kind: .tooLarge,
                                                reason: "the line is longer than 16777216 bytes"))
        // Read to the end, it reports the bad CRC-32: so the caps above stopped it early.
        let reader = try GzipReader(source: try FileSource(path: path), maxDecompressedBytes: 300 << 20)
        #expect(throws: GzipError.checksumMismatch) { try reader.forEachChunk { _ in } }
        #expect(reader.decompressedCount == 256 << 20 + UInt64(ArchiveFixtures.header().utf8.count + 1))
    }

    @Test func aFileOfManyRecordsStopsAtTheRecordCap() throws {
        let target = try RefusalTarget()
        let path = target.path("records.jsonl.gz")
        let sink = try FileSink(path: path)
        let writer = try GzipWriter(sink: sink)
        try writer.write(ArchiveFixtures.header() + "\n")
        let line = Array((ArchiveFixtures.change("c-1") + "\n").utf8)
        let block = Array(repeatElement(line, count: 10_000).joined())
        for _ in 0..<10 { try writer.write(block) }  // 100 000 copies of one change
        try writer.write(ArchiveFixtures.trailer(changes: 100_000) + "\n")
        try writer.finish()
        try sink.close()
        target.expectRefused(path,
                             ArchiveError(file: path, line: 1001, kind: .tooLarge, reason: "more than 1000 records"),
                             limits: ArchiveLimits(maxRecords: 1000))
    }

    @Test func aHugeNoteIsRefusedByTheLineCapOrTheTextCap() throws {
        let target = try RefusalTarget()
        // 20 MiB in one note, past a 1 MiB line cap: refused before the line is read to its end.
        let path = target.path("huge-note.jsonl.gz")
        let sink = try FileSink(path: path)
        let writer = try GzipWriter(sink: sink)
        try writer.write(ArchiveFixtures.header() + "\n" + #"{"type":"change","changeId":"c-1","fields":{"note":""#)
        let letters = [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20)
        for _ in 0..<20 { try writer.write(letters) }
        try writer.write("\"}}\n" + ArchiveFixtures.trailer(changes: 1) + "\n")
        try writer.finish()
        try sink.close()
        target.expectRefused(path,
                             ArchiveError(file: path, line: 2, kind: .tooLarge,
                                          reason: "the line is longer than 1048576 bytes"),
                             limits: ArchiveLimits(maxLineBytes: 1 << 20))
        // 2 MiB fits in a line under the default cap, but not in a note.
        let note = String(repeating: "ş", count: 1 << 20)
        let twoMiB = target.path("long-note.jsonl.gz")
        try Fixtures.writeArchive([ArchiveFixtures.header(),
                                   ArchiveFixtures.change("c-1", fields: ArchiveFixtures.createFields(note: note)),
                                   ArchiveFixtures.trailer(changes: 1)], to: twoMiB)
        target.expectRefused(twoMiB, ArchiveError(
            file: twoMiB, line: 2, kind: .invalidRecord,
            reason: "change record: field \"fields.note\": is longer than 1048576 bytes"))
    }
}
