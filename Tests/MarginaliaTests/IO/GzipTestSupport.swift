import Foundation
import Testing
@testable import Marginalia
import MarginaliaTestSupport

/// Shared fixtures for the archive tests: seeded runs, sample data, and gzip helpers.
enum GzipFixtures {
    /// Runs `body` with a generator seeded from `MARGINALIA_TEST_SEED` when set (to replay a failure), else
    /// freshly, attaching the seed to any error it throws.
    static func withSeed(_ body: (inout SeededGenerator, UInt64) throws -> Void) {
        let seed = TestSeed.seed()
        var generator = SeededGenerator(seed: seed)
        do {
            try body(&generator, seed)
        } catch {
            Issue.record(error, "seed \(seed) (rerun with MARGINALIA_TEST_SEED=\(seed))")
        }
    }

    /// `count` incompressible bytes.
    static func randomBytes(_ count: Int, using generator: inout SeededGenerator) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset < raw.count {
                let word = generator.next()
                for shift in 0..<min(8, raw.count - offset) {
                    raw[offset + shift] = UInt8(truncatingIfNeeded: word >> (8 * shift))
                }
                offset += 8
            }
        }
        return bytes
    }

    /// About `count` bytes of JSON Lines that compress like a real export (every line ends with "\n").
    static func jsonLines(_ count: Int, using generator: inout SeededGenerator) -> [UInt8] {
        let words = ["highlight", "note", "the", "of", "chapter", "reader", "margin", "quote", "was", "and",
                     "é", "☃"]
        var text = ""
        var line = 0
        while text.utf8.count < count {
            line += 1
            let quote = (0..<Int.random(in: 3...40, using: &generator))
                .map { _ in words[Int.random(in: 0..<words.count, using: &generator)] }
                .joined(separator: " ")
            let offset = Int.random(in: 0...900_000, using: &generator)
            text += "{\"kind\":\"highlight\",\"id\":\"h\(line)\",\"offset\":\(offset),\"quote\":\"\(quote)\"}\n"
        }
        return Array(text.utf8)
    }

    /// Compresses `bytes` with `GzipWriter`, feeding it in pieces of random size.
    static func compress(_ bytes: [UInt8], level: Int = 6, using generator: inout SeededGenerator) throws -> [UInt8] {
        let sink = ByteArraySink()
        let writer = try GzipWriter(sink: sink, level: level)
        var offset = 0
        while offset < bytes.count {
            let count = min(bytes.count - offset, Int.random(in: 1...200_000, using: &generator))
            try bytes.withUnsafeBytes { all in
                try writer.write(UnsafeRawBufferPointer(rebasing: all[offset..<offset + count]))
            }
            offset += count
        }
        try writer.finish()
        return sink.bytes
    }

    /// Compresses `bytes` with `GzipWriter` in one write.
    static func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        let sink = ByteArraySink()
        let writer = try GzipWriter(sink: sink)
        try writer.write(bytes)
        try writer.finish()
        return sink.bytes
    }

    /// Decompresses `archive` with `GzipReader`.
    static func decompress(
        _ archive: [UInt8],
        maxDecompressedBytes: UInt64 = GzipReader.defaultMaxDecompressedBytes,
        maxReadSize: Int = .max
    ) throws -> [UInt8] {
        let source = ByteArraySource(archive, maxReadSize: maxReadSize)
        let reader = try GzipReader(source: source, maxDecompressedBytes: maxDecompressedBytes,
                                    inputBufferSize: 4096)
        return try reader.readAll()
    }

    /// What reading `archive` ends in: the decompressed bytes, or the refusal.
    static func outcome(_ archive: [UInt8], maxReadSize: Int = .max) -> Result<[UInt8], GzipError> {
        do {
            return .success(try decompress(archive, maxReadSize: maxReadSize))
        } catch let error as GzipError {
            return .failure(error)
        } catch {
            return .failure(.corruptData("unexpected error type: \(error)"))
        }
    }

    /// The refusal for `archive`, or nil if it was accepted.
    static func refusal(_ archive: [UInt8], maxReadSize: Int = .max) -> GzipError? {
        if case .failure(let error) = outcome(archive, maxReadSize: maxReadSize) {
            return error
        }
        return nil
    }

    /// A fresh temporary directory, removed after `body` returns.
    static func withTemporaryDirectory(_ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("marginalia-gzip-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    /// A sink that accepts `capacity` bytes and then fails the way a full disk does.
    final class FullDiskSink: ByteSink {
        private(set) var bytes: [UInt8] = []
        private let capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
        }

        func write(_ bytes: UnsafeRawBufferPointer) throws {
            guard self.bytes.count + bytes.count <= capacity else {
                throw IOError.posix("write", path: "full-disk-sink", code: ENOSPC)
            }
            self.bytes.append(contentsOf: bytes)
        }
    }
}
