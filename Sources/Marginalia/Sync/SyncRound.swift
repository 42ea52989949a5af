/// A sync round under way: what reading the folder found, and what applying it has reported so far.
struct SyncRound {
    /// A segment file `readFolder` found that this store has not applied or written yet, to read and apply.
    struct Segment {
        /// Its device's place in `report.devices`.
        var deviceIndex: Int
        var device: String
        var name: String
        /// Its path inside the folder.
        var relative: String
        /// Its path on disk.
        var path: String
    }

    let folder: SyncFolder
    var report: SyncReport
    /// The store's log, as its segments name it (its creation time).
    let log: String
    var segments: [Segment] = []
    /// Why this store takes its own directory to be written by a copy of it too, when it does.
    var cloneEvidence: String?
    /// Merge the changes made far ahead of this machine's clock at once, instead of holding them.
    var acceptFuture = false
}

extension SyncRound {
    /// Reads and checks `segment` in full (file I/O only: no connection, no lock); nil, with the file listed as
    /// pending in its device's report, when it does not read whole yet. One file at a time, so that a round holds
    /// one file's changes in memory, not the whole folder's.
    mutating func read(_ segment: Segment) throws -> SegmentContents? {
        switch try SegmentFile.read(segment.path) {
        case .pending(let reason):
            report.devices[segment.deviceIndex].pending.append(SyncFileIssue(path: segment.relative, reason: reason))
            return nil
        case .whole(let contents):
            return contents
        }
    }
}

@available(*, unavailable)
extension SyncRound: Sendable {}
