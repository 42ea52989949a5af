/// What came from outside: one import, restore, applied sync segment or merge, as its receipt records it.
public struct AuditReceipt: Hashable, Sendable {
    /// The receipt's number in the store.
    public var id: Int64
    /// When it arrived (ISO 8601).
    public var receivedAt: String
    /// `import`, `restore`, `sync`, `merge` or `unrecorded`.
    public var kind: String
    /// The file read, as it was named to the command.
    public var file: String?
    /// Its size in bytes.
    public var size: Int64?
    /// Its SHA-256 as read, 64 hex digits.
    public var sha256: String?
    /// Change records read, new ones, ones already there and ones held in quarantine.
    public var changesRead: Int, newChanges: Int, duplicates: Int, quarantined: Int

    init(_ receipt: Receipt) {
        id = receipt.id
        receivedAt = receipt.receivedAt
        kind = receipt.kind.rawValue
        file = receipt.file
        size = receipt.size
        sha256 = receipt.sha256
        changesRead = receipt.changesRead
        newChanges = receipt.newChanges
        duplicates = receipt.duplicates
        quarantined = receipt.quarantined
    }
}
