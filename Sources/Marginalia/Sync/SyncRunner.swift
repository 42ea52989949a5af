#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the steps of a sync round run: on one connection, or on a store's engine (reading on a reader, each
/// write under the writer on its own, so that the app's writes go on between them).
protocol SyncRunner {
    func read<T>(_ body: (SyncReplica<StoreReader>) throws -> T) throws -> T
    func write<T>(_ body: (SyncReplica<StoreWriter>) throws -> T) throws -> T
    /// Lets waiting writers go first, between two writes of the round.
    func yieldToWriters()
    /// Tells progress after each file; throws to stop the round there.
    func applied(_ done: Int, of total: Int) throws
}

/// Every step on one writer.
struct WriterSyncRunner: SyncRunner {
    let writer: StoreWriter

    func read<T>(_ body: (SyncReplica<StoreReader>) throws -> T) throws -> T {
        try body(SyncReplica(store: writer.reader))
    }
    func write<T>(_ body: (SyncReplica<StoreWriter>) throws -> T) throws -> T { try body(SyncReplica(store: writer)) }
    func yieldToWriters() {}
    func applied(_ done: Int, of total: Int) throws {
        try writer.reportProgress("applying sync files", done: done, total: total, every: 1)
    }
}

extension SyncRound {
    /// How many changes of a segment are merged in one transaction.
    static let chunk = 2_000

    /// Runs one round through the folder at `path`: prepares this store's directory, lists what is new, checks
    /// and merges each file, then publishes (`SyncReplica.publish`), with the keys `keys` asks for.
    static func run(folder path: String, compact: Bool, acceptFuture: Bool, keys: SyncKeyRequest,
                    on runner: some SyncRunner) throws -> SyncReport
    {
        var round = try runner.write { try $0.prepareRound(path, keys: keys) }
        guard round.report.manifestPending == nil, round.report.joinNeeded == nil else { return round.report }
        round.acceptFuture = acceptFuture
        try runner.read { try $0.readFolder(&round) }
        if acceptFuture {
            round.report.releasedFromQuarantine = try runner.write { try $0.store.merging { try $0.releaseAllQuarantined() } }
        }
        let now = Int64(time(nil))
        for (index, segment) in round.segments.enumerated() {
            try round.apply(segment, now: now, on: runner)
            try runner.applied(index + 1, of: round.segments.count)
        }
        runner.yieldToWriters()
        return try runner.write { try $0.publish(&round, compact: compact) }
    }

    /// Checks `segment` whole without the writer, then merges its changes a chunk at a time, each chunk under the
    /// writer in a transaction of its own, and records it applied. A file of this store's own directory is recorded
    /// as its own when it is; otherwise it is a copy's of this store, and merged like another device's.
    mutating func apply(_ segment: Segment, now: Int64, on runner: some SyncRunner) throws {
        guard let (file, summary) = try check(segment, now: now) else { return }
        if segment.device == report.deviceID, try runner.write({ try $0.takeOwnSegment(segment, summary, in: &self) }) {
            return
        }
        var line = 2
        var merged = true
        do {
            try file.changes(chunk: Self.chunk) { chunk in
                runner.yieldToWriters()
                merged = try runner.write { try $0.applyChunk(chunk, firstLine: line, of: segment, summary, in: &self) }
                guard merged else { throw SegmentFile.Problem(line: nil, reason: "refused") }
                line += chunk.count
            }
        } catch let problem as SegmentFile.Problem {
            // Refused by the merger (noted there), or changed since it was checked: read again next round.
            if merged { noteDamaged(segment, line: problem.line, reason: "changed while read: \(problem.reason)") }
            return
        }
        try runner.write { try $0.recordApplied(segment, summary, in: &self) }
    }
}
