/// A receipt as an archive carries it (format 4), so that a restore keeps where its changes came from. Its `id` is
/// its number in the writing store, which the change records that arrived by it name (`"receipt": id`).
///
///     {"type":"receipt","id":2,"kind":"import","receivedAt":"2026-12-02T06:34:18.441Z","file":"clippings.txt",
///      "size":4913,"sha256":"…","changesRead":9,"newChanges":9,"duplicates":0,"quarantined":0}
extension Receipt {
    /// The receipt record's JSON, keys in a fixed order; an absent file, size or hash is left out.
    var archiveRecord: JSONValue {
        var members: [(String, JSONValue)] = [
            ("type", .string(ArchiveFormat.RecordType.receipt.rawValue)), ("id", .int(id)),
            ("kind", .string(kind.rawValue)), ("receivedAt", .string(receivedAt)),
        ]
        if let file { members.append(("file", .string(file))) }
        if let size { members.append(("size", .int(size))) }
        if let sha256 { members.append(("sha256", .string(sha256))) }
        members += [("changesRead", .int(Int64(changesRead))), ("newChanges", .int(Int64(newChanges))),
                    ("duplicates", .int(Int64(duplicates))), ("quarantined", .int(Int64(quarantined)))]
        return .object(JSONObject(members))
    }

    /// Reads a receipt record strictly: every key known, each of the right type.
    init(archiveRecord object: JSONObject) throws(FieldError) {
        let known: Set<String> = ["type", "id", "kind", "receivedAt", "file", "size", "sha256", "changesRead",
                                  "newChanges", "duplicates", "quarantined"]
        if let extra = object.keys.first(where: { !known.contains($0) }) {
            throw FieldError(field: extra, reason: "unknown field")
        }
        func count(_ key: String) throws(FieldError) -> Int {
            guard case .int(let value)? = object[key], value >= 0, value <= Int64(Int32.max) else {
                throw FieldError(field: key, reason: "must be a non-negative integer")
            }
            return Int(value)
        }
        guard case .int(let id)? = object["id"], id >= 1 else {
            throw FieldError(field: "id", reason: "must be a positive integer")
        }
        let kindName = try FieldReader.string(object["kind"] ?? .null, field: "kind")
        guard let kind = Kind(rawValue: kindName) else {
            throw FieldError(field: "kind", reason: "unknown receipt kind \"\(kindName)\"")
        }
        let receivedAt = try FieldReader.string(object["receivedAt"] ?? .null, field: "receivedAt")
        guard Timestamp.parseISO8601(receivedAt) != nil else {
            throw FieldError(field: "receivedAt", reason: "must be an ISO 8601 time")
        }
        let file = try object["file"].map { value throws(FieldError) in
            try FieldReader.text(value, field: "file", maxBytes: 4096)
        }
        var size: Int64?
        if let value = object["size"] {
            guard case .int(let bytes) = value, bytes >= 0 else {
                throw FieldError(field: "size", reason: "must be a non-negative integer")
            }
            size = bytes
        }
        var sha256: String?
        if let value = object["sha256"] {
            let hex = try FieldReader.string(value, field: "sha256")
            guard ChangeDigest.bytes(ofHex: hex) != nil else {
                throw FieldError(field: "sha256", reason: "must be 64 lowercase hexadecimal digits")
            }
            sha256 = hex
        }
        self.init(id: id, receivedAt: receivedAt, kind: kind, file: file, size: size, sha256: sha256,
                  changesRead: try count("changesRead"), newChanges: try count("newChanges"),
                  duplicates: try count("duplicates"), quarantined: try count("quarantined"))
    }
}
