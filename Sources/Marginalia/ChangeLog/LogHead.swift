/// The newest change of a log and its digest: everything before it is fixed by the digest.
public struct LogHead: Equatable, Sendable {
    /// The change's place in the store's own order (`seq`); 0 for an empty log.
    public let sequence: Int64
    /// Its digest, 64 lowercase hex digits; `ChangeDigest.genesis` (zeros) for an empty log.
    public let digest: String

    /// A head at `sequence` with `digest`.
    package init(sequence: Int64, digest: String) {
        self.sequence = sequence
        self.digest = digest
    }
}
