import Foundation
import Testing
@testable import Marginalia

/// Reading ahead on a second thread hands over exactly what reading in line does, and stops cleanly.
@Suite struct ArchiveReadAheadTests {
    typealias Fixtures = ArchiveFixtures

    /// An archive of `count` create changes: many blocks of the read-ahead channel.
    static func archive(changes count: Int, in directory: TemporaryDirectory) throws -> String {
        let path = directory.path("many.jsonl.gz")
        let changes = (0..<count).map { index in
            Fixtures.change("c-\(index)", hlc: "00\(1_700_000_005_000 + index)-00000",
                            entityID: "ann-\(index)")
        }
        try Fixtures.writeArchive([Fixtures.header()] + changes + [Fixtures.trailer(changes: count)], to: path)
        return path
    }

    static func read(_ path: String, ahead: Bool)
        -> (records: [String], outcome: Result<ArchiveSummary, ArchiveError>)
    {
        var records: [String] = []
        let reader = ArchiveReader(path: path)
        let handle: (ArchiveRecord, Int) throws -> Void = { record, line in records.append("\(line) \(record)") }
        do {
            let summary = ahead ? try reader.readAhead(handle) : try reader.read(handle)
            return (records, .success(summary))
        } catch let error as ArchiveError {
            return (records, .failure(error))
        } catch {
            return (records, .failure(ArchiveError(file: path, kind: .io, reason: "unexpected \(error)")))
        }
    }

    @Test func handsOverTheSameRecordsInTheSameOrder() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.archive(changes: 3000, in: directory)
        let inLine = Self.read(path, ahead: false)
        let ahead = Self.read(path, ahead: true)
        #expect(ahead.records.count == 3001)
        #expect(ahead.records == inLine.records)
        #expect(try ahead.outcome.get() == inLine.outcome.get())
    }

    @Test func aDamagedFileHandsOverWhatPrecedesTheDamageThenItsError() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.archive(changes: 3000, in: directory)
        let bytes = try Fixtures.read(path)
        try Fixtures.write(Array(bytes.prefix(bytes.count * 2 / 3)), to: path)
        let inLine = Self.read(path, ahead: false)
        let ahead = Self.read(path, ahead: true)
        #expect(ahead.records == inLine.records)
        #expect(ahead.records.count > 1000)
        guard case .failure(let error) = ahead.outcome, case .failure(let expected) = inLine.outcome else {
            Issue.record("a truncated archive was read without error")
            return
        }
        #expect(error == expected)
        #expect(error.kind == .truncated)
    }

    @Test func theHandlersErrorStopsReadingAndIsTheOneThrown() throws {
        struct Stop: Error, Equatable {}
        let directory = try TemporaryDirectory()
        let path = try Self.archive(changes: 5000, in: directory)
        var handled = 0
        #expect(throws: Stop()) {
            try ArchiveReader(path: path).readAhead { _, line in
                handled += 1
                if line == 10 { throw Stop() }
            }
        }
        #expect(handled == 10)
    }
}
