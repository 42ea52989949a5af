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
    ///     let report = try store.sync(folder: "/home/ana/Sync/marginalia")
    ///     for file in report.pending { print("waiting for \(file)") }
    /// - Parameter compact: fold this store's own segments into one (done anyway beyond 64 of them).
    /// - Throws: `MarginaliaError`: `.invalidArgument` for a store inside the folder, `.newerVersion` for a folder
    ///   of a newer format, `.notFound` for a missing folder, `.io` when a file cannot be written.
    public func sync(folder: String, compact: Bool = false) throws -> SyncReport {
        try engine.write { try $0.sync(folder: folder, compact: compact) }
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
}
