import Foundation
import Testing
@testable import Marginalia
import MarginaliaTestSupport

/// The export's second thread: the same bytes as a plain `GzipWriter`, and a failing sink is reported, not
/// hung on.
@Suite struct PipelinedGzipWriterTests {
    @Test func writesTheSameBytesAsAPlainGzipWriter() throws {
        var generator = SeededGenerator(seed: 7)
        let blocks = (0..<40).map { index in
            GzipFixtures.jsonLines(1 + index * 997 % 9000, using: &generator)
        }
        let plainSink = ByteArraySink()
        let plain = try GzipWriter(sink: plainSink)
        for block in blocks { try plain.write(block) }
        try plain.finish()

        let pipelinedSink = ByteArraySink()
        let pipelined = PipelinedGzipWriter(gzip: try GzipWriter(sink: pipelinedSink))
        for block in blocks { try pipelined.write(block) }
        try pipelined.finish()

        #expect(pipelinedSink.bytes == plainSink.bytes)
        #expect(try GzipFixtures.decompress(pipelinedSink.bytes) == Array(blocks.joined()))
    }

    @Test func aFullDiskStopsTheWritesWithItsError() throws {
        let sink = GzipFixtures.FullDiskSink(capacity: 1000)
        let writer = PipelinedGzipWriter(gzip: try GzipWriter(sink: sink, bufferSize: 512))
        var generator = SeededGenerator(seed: 8)
        let expected = IOError.posix("write", path: "full-disk-sink", code: ENOSPC)
        // Incompressible blocks fill the sink at once; the error reaches a later write or the finish.
        #expect(throws: expected) {
            for _ in 0..<64 { try writer.write(GzipFixtures.randomBytes(50_000, using: &generator)) }
            try writer.finish()
        }
        #expect(throws: expected) { try writer.stop() }
    }

    @Test func anExportToAFullDiskFailsWithTheDisksError() throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock(ArchiveFixtures.epoch)
        let store = try ArchiveFixtures.store(directory, "a.db", clock: clock)
        _ = try ArchiveFixtures.populate(store, clock: clock)
        let sink = GzipFixtures.FullDiskSink(capacity: 100)
        #expect(throws: MarginaliaError(IOError.posix("write", path: "full-disk-sink", code: ENOSPC))) {
            try store.exportArchive(to: sink)
        }
        // The store is still usable: the export's read transaction ended.
        #expect(try store.annotations(matching: AnnotationFilter(includeDeleted: true)).count == 5)
    }
}
