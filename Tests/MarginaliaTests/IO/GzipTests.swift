import Foundation
import Testing
@testable import Marginalia
import MarginaliaTestSupport

/// Round trips, interoperability with the system gzip, and writer and file errors.
/// The refusals are in GzipRefusalTests.swift, the line reader in LineReaderTests.swift.
@Suite struct GzipTests {
    static let sizes = [0, 1, 2, 3, 100, 4095, 65_535, 65_536, 65_537, 262_143, 262_144, 262_145, 1_000_003,
                        (6 << 20) + 17]

    // MARK: - Round trips

    @Test(arguments: sizes)
    func roundTripRandomBytes(size: Int) {
        GzipFixtures.withSeed { generator, seed in
            let original = GzipFixtures.randomBytes(size, using: &generator)
            let archive = try GzipFixtures.compress(original, using: &generator)
            let readSize = Int.random(in: 1...300_000, using: &generator)
            let restored = try GzipFixtures.decompress(archive, maxReadSize: readSize)
            let identical = restored == original
            #expect(identical, "size \(size), read size \(readSize), seed \(seed)")
        }
    }

    @Test(arguments: sizes)
    func roundTripJSONLines(size: Int) {
        GzipFixtures.withSeed { generator, seed in
            let original = Array(GzipFixtures.jsonLines(size, using: &generator).prefix(size))
            let archive = try GzipFixtures.compress(original, using: &generator)
            if size > 100_000 {
                #expect(archive.count < size / 3, "JSON Lines should compress well; seed \(seed)")
            }
            let restored = try GzipFixtures.decompress(archive, maxReadSize: Int.random(in: 1...70_000,
                                                                                        using: &generator))
            let identical = restored == original
            #expect(identical, "size \(size), seed \(seed)")
        }
    }

    @Test(arguments: [0, 1, 9])
    func roundTripAtOtherLevels(level: Int) {
        GzipFixtures.withSeed { generator, seed in
            let original = GzipFixtures.jsonLines(300_000, using: &generator)
            let archive = try GzipFixtures.compress(original, level: level, using: &generator)
            let identical = try GzipFixtures.decompress(archive) == original
            #expect(identical, "level \(level), seed \(seed)")
        }
    }

    @Test func countsMatchTheBytesWrittenAndProduced() throws {
        let sink = ByteArraySink()
        let writer = try GzipWriter(sink: sink)
        try writer.write("{\"kind\":\"manifest\"}\n")
        try writer.write(Array(repeating: UInt8(ascii: "x"), count: 1000))
        #expect(writer.uncompressedCount == 1020)
        try writer.finish()
        #expect(writer.compressedCount == UInt64(sink.bytes.count))
        // zlib's gzip header: no name, no mtime, OS = 3 (Unix).
        #expect(Array(sink.bytes.prefix(10)) == [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3])

        let reader = try GzipReader(source: ByteArraySource(sink.bytes))
        #expect(reader.isComplete == false)
        #expect(try reader.readAll().count == 1020)
        #expect(reader.isComplete)
        #expect(reader.decompressedCount == 1020)
        #expect(reader.compressedCount == UInt64(sink.bytes.count))
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(try buffer.withUnsafeMutableBytes { try reader.read(into: $0) } == 0)
    }

    // MARK: - The system gzip

    @Test func systemGzipReadsWriterOutput() throws {
        try GzipFixtures.withTemporaryDirectory { directory in
            GzipFixtures.withSeed { generator, seed in
                for size in [0, 1, 70_000, 5 << 20] {
                    let original = GzipFixtures.jsonLines(size, using: &generator)
                    let path = directory.appendingPathComponent("export-\(size).jsonl.gz").path
                    let sink = try FileSink(path: path)
                    let writer = try GzipWriter(sink: sink)
                    try writer.write(original)
                    try writer.finish()
                    try sink.sync()
                    try sink.close()

                    let gunzip = try ChildProcess("/bin/gzip", ["-dc", path]).run()
                    #expect(gunzip.status == 0, "size \(size), seed \(seed)")
                    let identical = [UInt8](gunzip.output) == original
                    #expect(identical, "size \(size), seed \(seed)")
                }
            }
        }
    }

    @Test func readerReadsSystemGzipOutput() throws {
        try GzipFixtures.withTemporaryDirectory { directory in
            GzipFixtures.withSeed { generator, seed in
                for size in [0, 1, 70_000, 5 << 20] {
                    let original = GzipFixtures.jsonLines(size, using: &generator)
                    let path = directory.appendingPathComponent("plain-\(size).jsonl").path
                    try Data(original).write(to: URL(fileURLWithPath: path))
                    // Without -n, gzip stores the file name (FNAME), so the reader's header parsing is exercised.
                    let gzip = try ChildProcess("/bin/gzip", ["-6", "-c", path]).run()
                    #expect(gzip.status == 0)
                    #expect(gzip.output.count > 3 && gzip.output[3] & 0x08 != 0, "FNAME flag set")
                    let archivePath = path + ".gz"
                    try gzip.output.write(to: URL(fileURLWithPath: archivePath))

                    let reader = try GzipReader(source: try FileSource(path: archivePath))
                    let identical = try reader.readAll() == original
                    #expect(identical, "size \(size), seed \(seed)")
                }
            }
        }
    }

    // MARK: - Writer and file errors

    @Test func fullDiskSurfacesENOSPC() throws {
        // Every write to /dev/full fails with ENOSPC, like a full file system.
        let sink = try FileSink(path: "/dev/full")
        let writer = try GzipWriter(sink: sink, bufferSize: 4096)
        var generator = SeededGenerator(seed: 1)
        let expected = IOError(operation: "write", path: "/dev/full", code: ENOSPC,
                                    message: "No space left on device")
        #expect(throws: expected) {
            try writer.write(GzipFixtures.randomBytes(100_000, using: &generator))
        }
        #expect(expected.description == "cannot write /dev/full: No space left on device")
        #expect(throws: GzipError.alreadyFinished) { try writer.write([1, 2, 3]) }
        #expect(throws: GzipError.alreadyFinished) { try writer.finish() }
    }

    @Test func sinkFailureDuringFinishIsReported() throws {
        let sink = GzipFixtures.FullDiskSink(capacity: 10)
        let writer = try GzipWriter(sink: sink)
        try writer.write("small enough to stay in the writer's buffer until finish()")
        #expect(sink.bytes.isEmpty)
        #expect(throws: IOError.posix("write", path: "full-disk-sink", code: ENOSPC)) { try writer.finish() }
    }

    @Test func syncFailureIsReported() throws {
        // fsync(2) on /dev/null fails with EINVAL: the descriptor does not support synchronization.
        let sink = try FileSink(path: "/dev/null")
        #expect(throws: IOError(operation: "fsync", path: "/dev/null", code: EINVAL,
                                     message: "Invalid argument")) { try sink.sync() }
        try sink.close()
        try sink.close()
        #expect(throws: IOError.closed("/dev/null")) { try sink.write(UnsafeRawBufferPointer(start: nil, count: 0)) }
    }

    @Test func fileErrorsCarryTheErrnoText() throws {
        try GzipFixtures.withTemporaryDirectory { directory in
            let existing = directory.appendingPathComponent("existing").path
            try Data([1]).write(to: URL(fileURLWithPath: existing))
            #expect(throws: IOError(operation: "open", path: existing, code: EEXIST, message: "File exists")) {
                try FileSink(path: existing, exclusive: true)
            }
            let missing = directory.appendingPathComponent("missing.gz").path
            #expect(throws: IOError(operation: "open", path: missing, code: ENOENT,
                                         message: "No such file or directory")) {
                try FileSource(path: missing)
            }
            let reader = try GzipReader(source: try FileSource(path: directory.path))
            #expect(throws: IOError(operation: "read", path: directory.path, code: EISDIR,
                                         message: "Is a directory")) { try reader.readAll() }
        }
    }

    @Test func newFilesGetMode0644AndTruncate() throws {
        try GzipFixtures.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("out.gz").path
            try Data(repeating: 7, count: 10_000).write(to: URL(fileURLWithPath: path))
            let sink = try FileSink(path: path)
            try [UInt8]([1, 2, 3]).withUnsafeBytes { try sink.write($0) }
            try sink.close()
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data([1, 2, 3]))

            let fresh = directory.appendingPathComponent("fresh.gz").path
            try FileSink(path: fresh, exclusive: true).close()
            let mode = try FileManager.default.attributesOfItem(atPath: fresh)[.posixPermissions] as? Int
            // The umask may clear bits of 0644 but never adds any.
            #expect(mode.map { $0 & ~0o644 == 0 && $0 & 0o600 == 0o600 } == true, "mode \(String(describing: mode))")
        }
    }

    @Test func invalidLevelIsRefused() {
        #expect(throws: GzipError.zlib(function: "deflateInit2", code: -2, message: "invalid compression level 10")) {
            try GzipWriter(sink: ByteArraySink(), level: 10)
        }
    }
}
