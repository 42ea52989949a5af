/// Moves a sync folder's files between a local mirror of the folder and storage the library never reaches itself:
/// an S3-compatible bucket, a WebDAV server, anything an app's own code or a tool such as rclone speaks to. The
/// library stays off the network: it runs its ordinary folder round on the mirror, between a pull and a push the
/// app supplies (`AnnotationStore.sync(mirror:through:)`).
///
/// What the storage holds is untrusted, as a folder's files are: everything read from the mirror is checked and
/// signed as in a folder. A transfer must keep two promises:
/// - a file is in the mirror whole or not at all once `pull` returns without throwing (a pull that fails throws,
///   and the round does not run);
/// - it writes, replaces or removes on the storage only the paths `push` names, all inside this store's own
///   directory (`devices/<id>/`), whatever the storage holds.
public protocol SyncTransfer {
    /// Before a round: makes `mirror` hold what the storage holds under the folder's `devices/` directory. Every
    /// other device's directory as the storage has it, files added, replaced and removed; this device's own
    /// directory (`devices/<device>/`) added to only, never removed from: the mirror may hold files of it not sent
    /// yet.
    /// - Throws: any error; the round is then not run, and nothing of the store changes.
    func pull(into mirror: String, device: String) throws

    /// After a round: sends `files.written` from `mirror` to the storage (each a path relative to the mirror, whole
    /// or not at all under its name; segments never replace a file of another content), then removes
    /// `files.removed` there.
    /// - Throws: any error; the files stay in the mirror, and are sent first at the next round.
    func push(_ files: SyncTransferFiles, from mirror: String) throws
}

/// What one round (or the rounds whose push failed) wrote and removed in this store's own directories of the
/// mirror, to be sent to the storage: paths relative to the mirror, each `devices/<id>/<name>` with `<id>` this
/// store's device id (or the one it had before a renewal in that round).
public struct SyncTransferFiles: Equatable, Sendable {
    /// Files new or replaced, sorted.
    public var written: [String]
    /// Files the round removed (segments folded into another), sorted; never one in `written`.
    public var removed: [String]

    /// The files `written` and `removed`, each a path relative to the mirror.
    public init(written: [String] = [], removed: [String] = []) {
        self.written = written
        self.removed = removed
    }

    /// Whether there is nothing to send.
    public var isEmpty: Bool { written.isEmpty && removed.isEmpty }
}
