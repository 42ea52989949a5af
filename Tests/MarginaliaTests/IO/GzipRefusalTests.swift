import Foundation
import Testing
@testable import Marginalia
import MarginaliaTestSupport

/// Everything the archive reader must refuse (reliability test plan, section B).
@Suite struct GzipRefusalTests {
    /// A small valid archive and its plaintext.
    static func smallArchive() throws -> (plain: [UInt8], archive: [UInt8]) {
        var generator = SeededGenerator(seed: 42)
        let plain = GzipFixtures.jsonLines(3000, using: &generator)
        return (plain, try GzipFixtures.compress(plain))
    }

    // MARK: - Wrong container

    @Test func emptyFile() throws {
        #expect(GzipFixtures.refusal([]) == .emptyFile)
        #expect(GzipError.emptyFile.description == "empty file")
        try GzipFixtures.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("empty.gz").path
            try FileSink(path: path).close()
            #expect(throws: GzipError.emptyFile) { try GzipReader(source: try FileSource(path: path)).readAll() }
        }
    }

    @Test func sqliteDatabase() throws {
        let header = Array("SQLite format 3\u{0}".utf8) + [0x10, 0x00, 0x01, 0x01] + Array(repeating: 0, count: 80)
        #expect(GzipFixtures.refusal(header) == .sqliteDatabase)
        // The header arriving one byte per read still has to be recognised.
        #expect(GzipFixtures.refusal(header, maxReadSize: 1) == .sqliteDatabase)
        #expect(GzipError.sqliteDatabase.description == "this is an SQLite database, not an archive")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")))
    func realSQLiteDatabaseFile() throws {
        try GzipFixtures.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("user.db").path
            let sql = "CREATE TABLE t(x); INSERT INTO t VALUES (1);"
            let sqlite = try ChildProcess("/usr/bin/sqlite3", [path, sql]).run()
            #expect(sqlite.status == 0)
            #expect(throws: GzipError.sqliteDatabase) { try GzipReader(source: try FileSource(path: path)).readAll() }
        }
    }

    @Test func zipFile() {
        #expect(GzipFixtures.refusal([0x50, 0x4b, 3, 4, 20, 0, 0, 0, 8, 0]) == .zipArchive)
        #expect(GzipFixtures.refusal([0x50, 0x4b, 5, 6] + Array(repeating: 0, count: 18)) == .zipArchive)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/zip")))
    func realZipFile() throws {
        try GzipFixtures.withTemporaryDirectory { directory in
            let plain = directory.appendingPathComponent("export.jsonl").path
            try Data("{\"a\":1}\n".utf8).write(to: URL(fileURLWithPath: plain))
            let zipPath = directory.appendingPathComponent("export.zip").path
            #expect(try ChildProcess("/usr/bin/zip", ["-q", "-j", zipPath, plain]).run().status == 0)
            #expect(throws: GzipError.zipArchive) { try GzipReader(source: try FileSource(path: zipPath)).readAll() }
        }
    }

    @Test(arguments: ["{\"format_version\":1}\n", "[1,2]", "  \n\t{", "\u{FEFF}{\"a\":1}\n", "\r\n[]"])
    func uncompressedJSON(text: String) {
        #expect(GzipFixtures.refusal(Array(text.utf8)) == .uncompressedJSON)
        #expect(GzipError.uncompressedJSON.description == "uncompressed JSON: archives are gzip-compressed")
    }

    @Test(arguments: ["hello\n", "x", "\u{0}", "   ", "SQLite format", "PK", "\u{1F}\u{8A}"])
    func notGzip(text: String) {
        #expect(GzipFixtures.refusal(Array(text.utf8)) == .notGzip)
    }

    @Test func aLoneMagicByteIsTruncatedGzip() {
        #expect(GzipFixtures.refusal([0x1f]) == .truncated)
        #expect(GzipFixtures.refusal([0x1f, 0x8b]) == .truncated)
    }

    // MARK: - Corrupt streams

    @Test func corruptHeaderAndDeflateData() throws {
        let (_, archive) = try Self.smallArchive()
        var method = archive
        method[2] = 7
        #expect(GzipFixtures.refusal(method) == .corruptData("unknown compression method"))
        var flags = archive
        flags[3] = 0x20
        #expect(GzipFixtures.refusal(flags) == .corruptData("unknown header flags set"))
        // BFINAL = 1 with BTYPE = 11, which RFC 1951 reserves as an error.
        let badBlock = Array(archive.prefix(10)) + [0x07] + Array(archive.dropFirst(11))
        #expect(GzipFixtures.refusal(badBlock) == .corruptData("invalid block type"))
        #expect(GzipError.corruptData("invalid block type").description
                == "corrupt compressed data: invalid block type")
    }

    @Test func crcAndLengthMismatch() throws {
        let (_, archive) = try Self.smallArchive()
        var crc = archive
        crc[crc.count - 8] ^= 0x01
        #expect(GzipFixtures.refusal(crc) == .checksumMismatch)
        var length = archive
        length[length.count - 1] ^= 0x80
        #expect(GzipFixtures.refusal(length) == .lengthMismatch)
    }

    // MARK: - Truncation

    @Test func everyPrefixOfASmallArchiveIsRefused() throws {
        let (_, archive) = try Self.smallArchive()
        #expect(archive.count > 500)
        #expect(GzipFixtures.refusal(archive) == nil)
        for length in 0..<archive.count {
            let expected: GzipError = length == 0 ? .emptyFile : .truncated
            let prefix = Array(archive.prefix(length))
            #expect(GzipFixtures.refusal(prefix) == expected, "prefix of \(length) of \(archive.count) bytes")
            // Only the ISIZE (or part of it) missing, delivered a byte at a time.
            if length >= archive.count - 8 {
                #expect(GzipFixtures.refusal(prefix, maxReadSize: 1) == expected, "prefix \(length)")
            }
        }
    }

    @Test func sampledPrefixesOfALargerArchiveAreRefused() {
        GzipFixtures.withSeed { generator, seed in
            let plain = GzipFixtures.jsonLines(512 << 10, using: &generator)
            let archive = try GzipFixtures.compress(plain, using: &generator)
            try #require(archive.count > 1000, "seed \(seed)")
            var lengths = Array(0..<64) + Array(archive.count - 64..<archive.count)
            lengths += (0..<1000).map { _ in Int.random(in: 0..<archive.count, using: &generator) }
            for length in lengths {
                let expected: GzipError = length == 0 ? .emptyFile : .truncated
                let refusal = GzipFixtures.refusal(Array(archive.prefix(length)))
                #expect(refusal == expected, "prefix \(length) of \(archive.count) bytes, seed \(seed)")
            }
        }
    }

    // MARK: - Bit flips

    @Test func everySingleBitFlipIsRefusedOrHarmless() throws {
        let (plain, archive) = try Self.smallArchive()
        try #require(archive.count > 500)
        let crcRange = archive.count - 8..<archive.count - 4
        let lengthRange = archive.count - 4..<archive.count
        var harmlessBodyFlips = 0
        for index in archive.indices {
            for bit in 0..<8 {
                var flipped = archive
                flipped[index] ^= UInt8(1) << bit
                let outcome = GzipFixtures.outcome(flipped)
                let place = "byte \(index) bit \(bit) of \(archive.count)"
                switch outcome {
                case .success(let bytes):
                    // Accepted only if the output is exactly the original.
                    let identical = bytes == plain
                    #expect(identical, "\(place) decompressed to different bytes")
                    // MTIME (4-7), XFL (8), OS (9) and FTEXT (bit 0 of FLG) are informational; otherwise only the
                    // unused padding bits after the final deflate block can change without consequence.
                    let ignoredHeaderBit = (4...9).contains(index) || (index == 3 && bit == 0)
                    if !ignoredHeaderBit {
                        #expect(index == crcRange.lowerBound - 1, "\(place) accepted")
                        harmlessBodyFlips += 1
                    }
                case .failure(let error):
                    if (4...9).contains(index) || (index == 3 && bit == 0) {
                        Issue.record("\(place): an ignored header bit was refused: \(error)")
                    } else if crcRange.contains(index) {
                        #expect(error == .checksumMismatch, "\(place)")
                    } else if lengthRange.contains(index) {
                        #expect(error == .lengthMismatch, "\(place)")
                    }
                }
            }
        }
        // The final deflate byte uses at least one of its bits, so at most 7 are padding.
        #expect(harmlessBodyFlips <= 7)
    }

    // MARK: - Trailing data

    @Test func trailingGarbage() throws {
        let (_, archive) = try Self.smallArchive()
        for maxReadSize in [1, 7, Int.max] {
            #expect(GzipFixtures.refusal(archive + Array("garbage".utf8), maxReadSize: maxReadSize) == .trailingData)
            #expect(GzipFixtures.refusal(archive + [0], maxReadSize: maxReadSize) == .trailingData)
            #expect(GzipFixtures.refusal(archive + [0x1f], maxReadSize: maxReadSize) == .trailingData)
            #expect(GzipFixtures.refusal(archive + [0x0a], maxReadSize: maxReadSize) == .trailingData)
        }
        #expect(GzipError.trailingData.description == "trailing data after the end of the compressed stream")
    }

    @Test func secondMember() throws {
        let (_, archive) = try Self.smallArchive()
        let second = try GzipFixtures.compress(Array("{\"extra\":true}\n".utf8))
        for maxReadSize in [1, 2, 3, 4096, Int.max] {
            #expect(GzipFixtures.refusal(archive + second, maxReadSize: maxReadSize) == .secondMember)
            #expect(GzipFixtures.refusal(archive + [0x1f, 0x8b], maxReadSize: maxReadSize) == .secondMember)
        }
        #expect(GzipError.secondMember.description
                == "trailing data after the end of the compressed stream: a second gzip member")
    }

    @Test func errorsAreSticky() throws {
        let (_, archive) = try Self.smallArchive()
        let reader = try GzipReader(source: ByteArraySource(archive + [1, 2, 3]))
        #expect(throws: GzipError.trailingData) { try reader.readAll() }
        #expect(throws: GzipError.trailingData) { try reader.readAll() }
        #expect(reader.isComplete == false)
    }

    // MARK: - Size cap

    @Test func capIsExact() throws {
        let plain = [UInt8](repeating: 0x61, count: 1000)
        let archive = try GzipFixtures.compress(plain)
        #expect(try GzipFixtures.decompress(archive, maxDecompressedBytes: 1000) == plain)
        #expect(throws: GzipError.sizeLimitExceeded(limit: 999)) {
            try GzipFixtures.decompress(archive, maxDecompressedBytes: 999)
        }
        #expect(throws: GzipError.sizeLimitExceeded(limit: 0)) {
            try GzipFixtures.decompress(archive, maxDecompressedBytes: 0)
        }
        #expect(try GzipFixtures.decompress(try GzipFixtures.compress([]), maxDecompressedBytes: 0) == [])
        #expect(GzipError.sizeLimitExceeded(limit: 999).description == "decompressed size exceeds 999 bytes")
    }

    @Test func decompressionBombStopsAtTheCap() throws {
        // 128 MiB of zeros compress about 1000:1; writing them streams through one 1 MiB zero buffer.
        let sink = ByteArraySink()
        let writer = try GzipWriter(sink: sink)
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        for _ in 0..<128 {
            try writer.write(zeros)
        }
        try writer.finish()
        let bomb = sink.bytes
        #expect(bomb.count < 200_000)

        let cap: UInt64 = 10 << 20
        let source = ByteArraySource(bomb)
        let reader = try GzipReader(source: source, maxDecompressedBytes: cap)
        var delivered: UInt64 = 0
        #expect(throws: GzipError.sizeLimitExceeded(limit: cap)) {
            try reader.forEachChunk { delivered += UInt64($0.count) }
        }
        // It stopped one byte past the cap, after reading a single input buffer, and delivered nothing past it.
        #expect(reader.decompressedCount == cap + 1)
        #expect(delivered <= cap)
        #expect(source.bytesRead <= GzipReader.defaultInputBufferSize)

        // The same bomb is a valid archive under a cap it fits in.
        let full = try GzipReader(source: ByteArraySource(bomb), maxDecompressedBytes: 128 << 20)
        try full.forEachChunk { _ in }
        #expect(full.decompressedCount == 128 << 20)
    }
}
