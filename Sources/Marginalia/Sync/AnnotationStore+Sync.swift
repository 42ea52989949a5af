extension AnnotationStore {
    /// Runs one sync round through a folder that a file-sync tool (Syncthing, Dropbox, iCloud Drive, a USB stick)
    /// keeps in step between machines.
    ///
    /// Reads the segments of other devices not applied yet and merges them (each whole file in one transaction;
    /// a file that does not read whole is left for the next round), then writes one new segment with what the
    /// folder does not hold yet of this store's log, in `devices/<device id>/` only. A round with nothing new
    /// writes nothing. The folder's manifest is created by the first round; a folder of a newer format is
    /// refused untouched.
    ///
    /// The folder is read and every file checked on a reader, without the writer; the writer is then taken for
    /// each file's merge on its own, and once more to write this store's segment (and compact), so that the app's
    /// writes go on between them. Progress is told after each file ("applying sync files"); a stop then ends the
    /// round before it writes anything of its own, and the next round goes on from there.
    ///
    ///     let report = try store.sync(folder: "/home/ana/Sync/marginalia")
    ///     for file in report.pending { print("waiting for \(file)") }
    /// - Parameter compact: fold this store's own segments into one (done anyway beyond 64 of them).
    /// - Throws: `MarginaliaError`: `.invalidArgument` for a store inside the folder, `.newerVersion` for a folder
    ///   of a newer format, `.notFound` for a missing folder, `.io` when a file cannot be written.
    /// - Parameter acceptFuture: merge at once the changes made more than a day ahead of this machine's clock,
    ///   those held from earlier rounds too, instead of holding them until their time comes.
    public func sync(folder: String, compact: Bool = false, acceptFuture: Bool = false) throws -> SyncReport {
        try sync(folder: folder, compact: compact, acceptFuture: acceptFuture, progress: nil)
    }

    /// `sync(folder:compact:acceptFuture:)` with `progress` in place of the store-wide progress handler when
    /// given.
    func sync(folder: String, compact: Bool, acceptFuture: Bool = false, progress: ProgressHandler?) throws
        -> SyncReport
    {
        // A store in memory has no readers beside its writer; a thread inside a batch holds the writer already.
        guard path != ":memory:", !engine.currentThreadWrites else {
            return try engine.write(progress: progress) {
                try $0.sync(folder: folder, compact: compact, acceptFuture: acceptFuture)
            }
        }
        var round = try engine.read(progress: progress) { try $0.readFolder(folder) }
        round.acceptFuture = acceptFuture
        guard round.report.manifestPending == nil else { return round.report }
        if acceptFuture {
            round.report.releasedFromQuarantine = try engine.write(progress: progress) {
                try $0.releaseAllQuarantined()
            }
        }
        let handler = progress ?? progressHandler
        for (index, segment) in round.segments.enumerated() {
            // Read and checked before the writer is taken.
            if let contents = try read(segment, in: &round) {
                engine.yieldToWaitingWriters()
                try engine.write(progress: progress) { try $0.applySegment(segment, contents, in: &round) }
            }
            do {
                try StoreConnection.reportProgress(to: handler, "applying sync files", done: index + 1,
                                                   total: round.segments.count, every: 1)
            } catch {
                throw MarginaliaError(error)
            }
        }
        engine.yieldToWaitingWriters()
        return try engine.write(progress: progress) { try $0.publish(&round, compact: compact) }
    }

    /// Refuses a store path inside `folder` before the store is opened or created there: a sync tool that copies
    /// an open database corrupts it.
    /// - Throws: `MarginaliaError` `.invalidArgument` for a store inside the folder, `.notFound` for no folder.
    public static func checkSyncLocation(store: String, folder: String) throws {
        do {
            try SyncFolder(path: folder).refuseStore(at: store)
        } catch {
            throw MarginaliaError(error)
        }
    }

    /// Reads `segment` for `round` (`SyncRound.read`), its errors as `MarginaliaError`s.
    private func read(_ segment: SyncRound.Segment, in round: inout SyncRound) throws -> SegmentContents? {
        do {
            return try round.read(segment)
        } catch {
            throw MarginaliaError(error)
        }
    }
}
