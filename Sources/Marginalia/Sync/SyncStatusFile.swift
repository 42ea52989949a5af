/// A device's status file, `devices/<id>/unreadable.json`: the other devices' segments it found damaged, so
/// that their writers, reading it, write those changes again in a new segment. Replaced whole by its device
/// whenever the list changes; read by the others, leniently (an entry they cannot read is skipped).
///
///     {"format":"marginalia-sync-unreadable","device":"<id>","files":[{"path":"devices/<id>/<name>","size":N,
///      "reason":"…"}]}
struct SyncStatusFile: Equatable {
    static let format = "marginalia-sync-unreadable"

    /// One damaged file: its path inside the folder, its size as seen, and why.
    struct Entry: Equatable {
        var path: String
        var size: Int64
        var reason: String
    }

    var device: String
    var files: [Entry]

    /// The file's bytes: its JSON and a final line feed, signed with `keys` when given (`SignedFile`).
    func encoded(signedWith keys: DeviceKeys? = nil) throws -> [UInt8] {
        let entries = files.map { entry in
            JSONValue.object(JSONObject([
                ("path", .string(entry.path)), ("size", .int(entry.size)), ("reason", .string(entry.reason)),
            ]))
        }
        let members: [(String, JSONValue)] = [
            ("format", .string(Self.format)), ("device", .string(device)), ("files", .array(entries)),
        ]
        if let keys { return try SignedFile.encode(members, kind: Self.format, keys: keys) }
        return try JSONWriter.encode(.object(JSONObject(members))) + [0x0A]
    }

    /// Reads a status file; nil for one that is not (cut short, foreign).
    init?(bytes: [UInt8]) {
        guard case .object(let object)? = try? JSONParser.parse(bytes),
              case .string(Self.format)? = object["format"], case .string(let device)? = object["device"],
              case .array(let values)? = object["files"] else { return nil }
        self.device = device
        files = values.compactMap { value in
            guard case .object(let entry) = value, case .string(let path)? = entry["path"],
                  case .int(let size)? = entry["size"] else { return nil }
            if case .string(let reason)? = entry["reason"] { return Entry(path: path, size: size, reason: reason) }
            return Entry(path: path, size: size, reason: "")
        }
    }

    init(device: String, files: [Entry]) {
        self.device = device
        self.files = files
    }
}
