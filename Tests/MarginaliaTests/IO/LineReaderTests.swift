import Testing
@testable import Marginalia
import MarginaliaTestSupport

@Suite struct LineReaderTests {
    /// All lines of `bytes` read with small, odd-sized reads and a tiny starting buffer.
    static func lines(
        _ bytes: [UInt8],
        maxReadSize: Int = 3,
        maxLineBytes: Int = LineReader.defaultMaxLineBytes
    ) throws -> (lines: [LineReader.Line], missingFinalNewline: Bool) {
        let reader = LineReader(source: ByteArraySource(bytes, maxReadSize: maxReadSize),
                                maxLineBytes: maxLineBytes, bufferSize: 16)
        var lines: [LineReader.Line] = []
        try reader.forEachLine { lines.append($0) }
        #expect(reader.lineNumber == lines.count)
        return (lines, reader.missingFinalNewline)
    }

    static func text(_ line: LineReader.Line) -> String {
        String(decoding: line.bytes, as: UTF8.self)
    }

    @Test func randomLinesAcrossChunkBoundaries() {
        GzipFixtures.withSeed { generator, seed in
            var expected: [[UInt8]] = []
            var text: [UInt8] = []
            for _ in 0..<1000 {
                // Mostly short lines, some empty, some far longer than the reader's starting buffer.
                let length = Bool.random(using: &generator) ? Int.random(in: 0...3, using: &generator)
                    : Int.random(in: 0...700, using: &generator)
                let line = GzipFixtures.randomBytes(length, using: &generator).map { $0 == 0x0a ? 0x20 : $0 }
                expected.append(line)
                text += line + [0x0a]
            }
            let archive = try GzipFixtures.compress(text, using: &generator)
            for maxReadSize in [1, 7, 4096, Int.random(in: 1...100_000, using: &generator)] {
                let gzip = try GzipReader(source: ByteArraySource(archive, maxReadSize: maxReadSize),
                                          inputBufferSize: 100)
                let reader = LineReader(source: gzip, bufferSize: Int.random(in: 1...300, using: &generator))
                var number = 0
                while let line = try reader.next() {
                    number += 1
                    #expect(line.number == number)
                    #expect(line.endsWithNewline)
                    let same = number <= expected.count && Array(line.bytes) == expected[number - 1]
                    #expect(same, "line \(number), read size \(maxReadSize), seed \(seed)")
                }
                #expect(number == expected.count, "seed \(seed)")
                #expect(reader.missingFinalNewline == false)
                #expect(gzip.isComplete)
            }
        }
    }

    @Test func emptyLinesAndEmptyStream() throws {
        let empty = try Self.lines([])
        #expect(empty.lines.isEmpty)
        #expect(empty.missingFinalNewline == false)

        let blank = try Self.lines(Array("\n\n\n".utf8))
        #expect(blank.lines.map(\.number) == [1, 2, 3])
        #expect(blank.lines.allSatisfy { $0.bytes.isEmpty && $0.endsWithNewline })
        #expect(blank.missingFinalNewline == false)
    }

    @Test func missingFinalNewlineIsReported() throws {
        for maxReadSize in [1, 2, 100] {
            let result = try Self.lines(Array("{\"a\":1}\n{\"b\":2}".utf8), maxReadSize: maxReadSize)
            #expect(result.lines.map(Self.text) == ["{\"a\":1}", "{\"b\":2}"])
            #expect(result.lines.map(\.endsWithNewline) == [true, false])
            #expect(result.missingFinalNewline)
        }
    }

    @Test func carriageReturnsAreLeftInTheLine() throws {
        let result = try Self.lines(Array("a\r\nb\n".utf8))
        #expect(result.lines.map(Self.text) == ["a\r", "b"])
    }

    @Test func lineAtTheCapIsAcceptedAndOneByteMoreIsRefused() throws {
        let atCap = String(repeating: "x", count: 100)
        let accepted = try Self.lines(Array("short\n\(atCap)\n\(atCap)".utf8), maxLineBytes: 100)
        #expect(accepted.lines.map { $0.bytes.count } == [5, 100, 100])
        #expect(accepted.missingFinalNewline)

        for maxReadSize in [1, 1000] {
            let text = Array("short\n\n\(atCap)x\nafter\n".utf8)
            #expect(throws: GzipError.lineTooLong(line: 3, limit: 100)) {
                try Self.lines(text, maxReadSize: maxReadSize, maxLineBytes: 100)
            }
            // Also when the over-long line is the last one and has no newline.
            #expect(throws: GzipError.lineTooLong(line: 2, limit: 100)) {
                try Self.lines(Array("short\n\(atCap)x".utf8), maxReadSize: maxReadSize, maxLineBytes: 100)
            }
        }
        #expect(GzipError.lineTooLong(line: 3, limit: 100).description == "line 3 is longer than 100 bytes")
    }

    @Test func aHugeLineIsRefusedWithoutReadingItWhole() throws {
        let huge = [UInt8](repeating: UInt8(ascii: "n"), count: 20 << 20)
        let text = Array("{}\n{}\n".utf8) + huge + [0x0a]
        let archive = try GzipFixtures.compress(text)
        let gzip = try GzipReader(source: ByteArraySource(archive))
        let limit = 1 << 20
        let reader = LineReader(source: gzip, maxLineBytes: limit)
        #expect(try reader.next()?.number == 1)
        #expect(try reader.next()?.number == 2)
        #expect(throws: GzipError.lineTooLong(line: 3, limit: limit)) { try reader.next() }
        // At most the cap plus one starting buffer was decompressed, not the 20 MiB line.
        #expect(gzip.decompressedCount <= UInt64(limit + 1 + LineReader.defaultBufferSize))
        // The error is sticky.
        #expect(throws: GzipError.lineTooLong(line: 3, limit: limit)) { try reader.next() }
    }

    @Test func gzipRefusalsPassThrough() throws {
        var generator = SeededGenerator(seed: 7)
        let archive = try GzipFixtures.compress(GzipFixtures.jsonLines(500_000, using: &generator))
        let truncated = Array(archive.dropLast(4))
        let reader = LineReader(source: try GzipReader(source: ByteArraySource(truncated)))
        var count = 0
        #expect(throws: GzipError.truncated) {
            while try reader.next() != nil {
                count += 1
            }
        }
        // zlib hands over (nearly) every line before the trailer shows the damage: callers must not commit early.
        #expect(count > 1000)
    }

    @Test func heldLinesStayValid() throws {
        // Lines longer than half the 16-byte buffer force it to be compacted and grown while earlier lines are held.
        let text = Array("first line\nsecond line\nthird and longest line\n".utf8)
        let reader = LineReader(source: ByteArraySource(text, maxReadSize: 5), bufferSize: 16)
        var held: [LineReader.Line] = []
        while let line = try reader.next() {
            held.append(line)
        }
        #expect(held.map(Self.text) == ["first line", "second line", "third and longest line"])
    }
}
