extension AnnotationStore {
    /// Runs one sync round through a folder that a file-sync tool (Syncthing, Dropbox, iCloud Drive, a USB stick)
    /// keeps in step between machines.
    ///
    /// Checks the segments of other devices not applied yet, each read as a stream, and merges them (a chunk of
    /// changes per transaction; a file still being copied is left for a later round, a damaged one is reported on
    /// every round and its writer asked to write its changes again), then writes one new segment of the changes
    /// made on this device since its last, in `devices/<device id>/` only. A round with nothing new writes nothing.
    /// The store's first round creates its directory and manifest; a folder of a newer format is refused
    /// untouched; one round at a time runs per store and folder (a second waits).
    ///
    /// Only the devices of one roster speak in a folder: a store signs what it writes and takes only what an active
    /// device of its roster signed. A store in no roster founds one at its first round in a folder that has none;
    /// in a folder of another roster it reads and writes nothing until it joins (`SyncReport.joinNeeded`, `invite()`,
    /// `join(_:)`).
    ///
    /// The folder is read and every file checked on a reader, without the writer; the writer is then taken for
    /// each chunk's merge on its own, and once more to write this store's segment (and compact), so that the app's
    /// writes go on between them. Progress is told after each file ("applying sync files"); a stop then ends the
    /// round before it writes anything of its own, and the next round goes on from there.
    ///
    ///     let report = try store.sync(folder: "/home/ana/Sync/marginalia")
    ///     for file in report.pending { print("waiting for \(file)") }
    /// - Parameter compact: fold this store's own segments older than an hour into one (done anyway beyond 64).
    /// - Throws: `MarginaliaError`: `.invalidArgument` for a store inside the folder or a device directory that is
    ///   a symbolic link, `.newerVersion` for a folder of a newer format, `.notFound` for a missing folder, `.io`
    ///   for a folder this store cannot write in (before anything is merged) or a file that cannot be written.
    /// - Parameter acceptFuture: merge at once the changes made more than a day ahead of this machine's clock,
    ///   those held from earlier rounds too, instead of holding them until their time comes.
    ///
    /// Every file the store writes in the folder is signed with its device key, and only what a device of the
    /// folder's roster signed is taken (see `invite()`); the first store to sync through a folder founds its roster.
    ///
    ///     try store.sync(folder: folder, encrypt: true)                 // once: remembered by the store
    ///     try store.sync(folder: folder)                                // then
    /// - Parameter recipients: more keys to wrap the epoch keys to (encryption is then on), remembered by the store;
    ///   nil keeps those remembered; empty forgets them.
    /// - Parameter identities: identities that open segments earlier versions encrypted straight to them; kept in
    ///   memory only.
    ///
    /// Encryption by epochs, for a store in a roster (`encrypt: true`, once; remembered by the store, not by the
    /// folder's path): each device encrypts its segments to an age identity of its own for the roster's epoch,
    /// which it writes into its directory wrapped to every device of the roster that may speak and to the roster's
    /// recovery keys (`keys-….age`). A revocation starts a new epoch at each device's next round: a revoked device
    /// opens nothing written afterwards. No identity need be given: each device opens the others' epoch keys with
    /// its own device key. `encrypt: false` turns it off (and forgets `recipients`): an explicit choice.
    /// - Parameter encrypt: true turns encryption by epochs on, false turns all encryption off, nil keeps it.
    public func sync(folder: String, compact: Bool = false, acceptFuture: Bool = false,
                     recipients: [AgeRecipient]? = nil, identities: [AgeIdentity] = [],
                     encrypt: Bool? = nil) throws -> SyncReport {
        try sync(folder: folder, compact: compact, acceptFuture: acceptFuture,
                 keys: SyncKeyRequest(recipients: recipients, identities: identities, encrypt: encrypt),
                 progress: nil)
    }

    /// `sync(folder:compact:acceptFuture:recipients:identities:)` with `progress` in place of the store-wide
    /// progress handler when given.
    func sync(folder: String, compact: Bool, acceptFuture: Bool = false, keys: SyncKeyRequest = SyncKeyRequest(),
              progress: ProgressHandler?) throws -> SyncReport
    {
        // A store in memory has no readers beside its writer; a thread inside a batch holds the writer already.
        guard path != ":memory:", !engine.currentThreadWrites else {
            return try engine.writing(progress: progress) {
                try SyncReplica<StoreWriter>.sync($0, folder: folder, compact: compact, acceptFuture: acceptFuture,
                                                  keys: keys)
            }
        }
        do {
            return try SyncRound.run(folder: folder, compact: compact, acceptFuture: acceptFuture, keys: keys,
                                     on: EngineSyncRunner(engine: engine, progress: progress ?? progressHandler))
        } catch {
            throw MarginaliaError(error)
        }
    }

    /// Refuses a store path inside `folder` before the store is opened or created there: a sync tool that copies
    /// an open database corrupts it.
    /// - Throws: `MarginaliaError` `.invalidArgument` for a store inside the folder, `.notFound` for no folder.
    package static func checkSyncLocation(store: String, folder: String) throws {
        do {
            try SyncFolder(path: folder).refuseStore(at: store)
        } catch {
            throw MarginaliaError(error)
        }
    }
}

/// The steps of a round on a store's engine: reading on a reader, each write under the writer on its own.
private struct EngineSyncRunner: SyncRunner {
    let engine: StoreEngine
    let progress: ProgressHandler?

    func read<T>(_ body: (SyncReplica<StoreReader>) throws -> T) throws -> T {
        try engine.reading(progress: progress) { try body(SyncReplica(store: $0)) }
    }
    func write<T>(_ body: (SyncReplica<StoreWriter>) throws -> T) throws -> T {
        try engine.writing(progress: progress) { try body(SyncReplica(store: $0)) }
    }
    func yieldToWriters() { engine.yieldToWaitingWriters() }
    func applied(_ done: Int, of total: Int) throws {
        try StoreTransaction.reportProgress(to: progress, "applying sync files", done: done, total: total, every: 1)
    }
}
