/// A sync round under way: what reading the folder found, and what applying it has reported so far.
struct SyncRound {
    /// A whole file `readFolder` read, to apply.
    struct Segment {
        /// Its device's place in `report.devices`.
        var deviceIndex: Int
        var device: String
        var name: String
        /// Its path inside the folder.
        var relative: String
        var contents: SegmentContents
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

@available(*, unavailable)
extension SyncRound: Sendable {}
