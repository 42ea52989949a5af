/// The first line of a segment: who wrote it and which part of the writer's log it covers (`firstSeq...lastSeq`: the
/// changes of that range the writer published; a range may hold fewer changes than its length, or none).
struct SegmentHeader: Equatable {
    var formatVersion: Int64 = SyncFormat.segmentVersion
    /// The device id of the writer (the directory it lies in).
    var device: String
    /// The writer's log (its creation time): sequence numbers count within it.
    var log: String
    /// The first and last sequence number of the writer's log the segment holds.
    var firstSequence: Int64
    var lastSequence: Int64
    /// When it was written (ISO 8601).
    var createdAt: String
    /// In a segment encrypted with age, its authentication tag (64 lowercase hex digits, `SegmentKeys.tag`); nil
    /// in a plain one.
    var auth: String?

    var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("type", .string("header")), ("format", .string(SyncFormat.segmentFormat)),
            ("formatVersion", .int(formatVersion)), ("device", .string(device)), ("log", .string(log)),
            ("firstSeq", .int(firstSequence)), ("lastSeq", .int(lastSequence)), ("createdAt", .string(createdAt)),
        ]
        if let auth { fields.append(("auth", .string(auth))) }
        return .object(JSONObject(fields))
    }

    /// Reads a header record strictly: exactly these keys, each of the right type.
    init(json object: JSONObject) throws {
        guard case .string("header")? = object["type"] else {
            throw FieldError(field: "type", reason: "the first line must be the segment header")
        }
        guard case .string(let format)? = object["format"], format == SyncFormat.segmentFormat else {
            throw FieldError(field: "format", reason: "must be \"\(SyncFormat.segmentFormat)\"")
        }
        guard case .int(let version)? = object["formatVersion"], version >= 1 else {
            throw FieldError(field: "formatVersion", reason: "must be a positive integer")
        }
        guard version <= SyncFormat.segmentVersion else {
            throw FieldError(field: "formatVersion", reason: "segment format \(version) is newer than this version "
                + "reads (\(SyncFormat.segmentVersion)); upgrade marginalia to read it")
        }
        let keys = Set(object.map { $0.0 })
        let expected: Set<String> = ["type", "format", "formatVersion", "device", "log", "firstSeq", "lastSeq",
                                     "createdAt", "auth"]
        if let unknown = keys.subtracting(expected).sorted().first {
            throw FieldError(field: unknown, reason: "unknown field")
        }
        guard case .string(let device)? = object["device"], !device.isEmpty else {
            throw FieldError(field: "device", reason: "must be a device id")
        }
        guard case .string(let log)? = object["log"] else { throw FieldError(field: "log", reason: "must be text") }
        guard case .int(let first)? = object["firstSeq"], first >= 1 else {
            throw FieldError(field: "firstSeq", reason: "must be a positive integer")
        }
        guard case .int(let last)? = object["lastSeq"], last >= first else {
            throw FieldError(field: "lastSeq", reason: "must be an integer no less than firstSeq")
        }
        guard case .string(let createdAt)? = object["createdAt"] else {
            throw FieldError(field: "createdAt", reason: "must be an ISO 8601 time")
        }
        var auth: String?
        if let value = object["auth"] {
            guard case .string(let text) = value, text.utf8.count == 64,
                  text.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }) else {
                throw FieldError(field: "auth", reason: "must be 64 lowercase hexadecimal digits")
            }
            auth = text
        }
        self.init(formatVersion: version, device: device, log: log, firstSequence: first, lastSequence: last,
                  createdAt: createdAt, auth: auth)
    }

    init(formatVersion: Int64 = SyncFormat.segmentVersion, device: String, log: String, firstSequence: Int64,
         lastSequence: Int64, createdAt: String, auth: String? = nil) {
        self.formatVersion = formatVersion
        self.device = device
        self.log = log
        self.firstSequence = firstSequence
        self.lastSequence = lastSequence
        self.createdAt = createdAt
        self.auth = auth
    }
}
