/// A place in one store's change log: "every change up to here". Opaque; `Codable`, so that a transport can keep
/// what it has sent or applied.
///
/// A cursor belongs to the log it was taken from. Handed to a store whose log was replaced since (a restore), it
/// counts as no cursor at all: reading from the start again is harmless, since merging is idempotent.
public struct ChangeCursor: Hashable, Sendable, Codable {
    /// The log's position: the sequence number of the last change covered.
    let sequence: Int64
    /// Which log: the store's creation time, which a restore renews.
    let log: String

    init(sequence: Int64, log: String) {
        self.sequence = sequence
        self.log = log
    }
}
