#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension AnnotationStore {
    /// Runs one sync round through storage the library does not reach itself (a bucket, a WebDAV server), by way
    /// of a local mirror of the folder kept there and the transfers the app supplies:
    ///
    /// 1. sends first what an earlier round wrote and could not send (remembered in the mirror);
    /// 2. `transfer.pull`: the mirror takes what the storage holds; a pull that throws ends the round there, with
    ///    nothing of the store changed;
    /// 3. the ordinary round of `sync(folder:)` on the mirror: every file checked, signed, encrypted as in a folder;
    /// 4. `transfer.push`: what the round wrote or removed in this store's own directory, and nothing else (a
    ///    segment another device found damaged goes from the storage once its changes are written again, even
    ///    when the mirror's copy is whole: the storage's copy may not be). A push
    ///    that throws leaves the round's changes merged and its files in the mirror, remembered as not sent: the
    ///    next round sends them before anything else, so nothing is lost, and the error is thrown.
    ///
    /// One remote round at a time uses a mirror (a second waits).
    ///
    ///     struct Rclone: SyncTransfer { … }                   // the app's transfers, e.g. through rclone
    ///     let report = try store.sync(mirror: mirrorPath, through: Rclone(remote: "bucket:marginalia"))
    /// - Parameters: as `sync(folder:)`, with `mirror` for the folder.
    /// - Throws: `MarginaliaError` as `sync(folder:)`; the transfer's own error, as it threw it.
    public func sync(mirror: String, through transfer: some SyncTransfer, compact: Bool = false,
                     acceptFuture: Bool = false, recipients: [AgeRecipient]? = nil, identities: [AgeIdentity] = [],
                     encrypt: Bool? = nil) throws -> SyncReport {
        let mirror = try SyncMirror(path: mirror)
        let lock = try mirror.lock()
        defer { withExtendedLifetime(lock) {} }
        var unsent = try mirror.unsent()
        if !unsent.isEmpty {
            try transfer.push(unsent, from: mirror.root)
            unsent = SyncTransferFiles()
            try mirror.setUnsent(unsent)
        }
        let before = deviceID
        try transfer.pull(into: mirror.root, device: before)
        let listed = try mirror.files(of: before)
        let report = try sync(folder: mirror.root, compact: compact, acceptFuture: acceptFuture,
                              recipients: recipients, identities: identities, encrypt: encrypt)
        // A segment another device found damaged, and this store found whole in its mirror, was written again
        // by the round and kept; but the storage's copy is the one the other device read: it goes, from the
        // mirror and so from the storage, its changes being in the new segment.
        for path in report.republished where !report.removed.contains(path) && SyncMirror.isOwnPath(path) {
            unlink("\(mirror.root)/\(path)")
        }
        var after = try mirror.files(of: report.deviceID)
        if report.deviceID != before { after.merge(try mirror.files(of: before)) { mine, _ in mine } }
        let written = SyncMirror.changes(from: listed, to: after)
        guard !written.isEmpty else { return report }
        try mirror.setUnsent(written)
        try transfer.push(written, from: mirror.root)
        try mirror.setUnsent(SyncTransferFiles())
        return report
    }
}
