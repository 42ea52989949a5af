/// The first line of an archive.
public struct ArchiveHeader: Equatable, Sendable {
    /// The archive format's version (`ArchiveFormat.version` for what this version writes).
    public var formatVersion: Int64
    /// The device id of the store that wrote it.
    public var device: String
    /// When it was written (ISO 8601); the one value that differs between two exports of the same store.
    public var createdAt: String
    /// The user-database schema version of the store that wrote it.
    public var schemaVersion: Int64
    /// Every content edition the annotations in it were made or anchored on.
    public var editions: [String]
    /// Whether it holds only part of the store (a filtered export).
    public var partial: Bool
    /// For a partial archive, the filter that made it (`document`, `since`).
    public var filter: [String: String]
    /// The head of the writing store's hash chain when it was written (format 2 on; nil in format 1): every change
    /// of the store up to it is fixed by its digest. A full archive's changes rebuild exactly this chain.
    public var head: LogHead?

    /// A header with the given values.
    package init(formatVersion: Int64 = ArchiveFormat.version, device: String, createdAt: String,
                schemaVersion: Int64, editions: [String], partial: Bool, filter: [String: String] = [:],
                head: LogHead? = nil) {
        self.formatVersion = formatVersion
        self.device = device
        self.createdAt = createdAt
        self.schemaVersion = schemaVersion
        self.editions = editions
        self.partial = partial
        self.filter = filter
        self.head = head
    }

    var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("type", .string(ArchiveFormat.RecordType.header.rawValue)),
            ("format", .string(ArchiveFormat.name)),
            ("formatVersion", .int(formatVersion)),
            ("device", .string(device)),
            ("createdAt", .string(createdAt)),
            ("schemaVersion", .int(schemaVersion)),
            ("editions", .array(editions.map(JSONValue.string))),
            ("partial", .bool(partial)),
        ]
        if !filter.isEmpty {
            members.append(("filter", .object(JSONObject(
                filter.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))))
        }
        if let head, formatVersion >= ArchiveFormat.headVersion {
            members.append(("head", .object(JSONObject([
                ("seq", .int(head.sequence)), ("digest", .string(head.digest)),
            ]))))
        }
        return .object(JSONObject(members))
    }
}
