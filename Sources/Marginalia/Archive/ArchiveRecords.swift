/// Strict decoding of the archive's own record types, exactly the keys of the format, each of the right type; a
/// change record is the core's (`ChangeCodec`).
enum ArchiveRecords {
    /// The keys of each record type, built once.
    private enum Keys {
        static let annotation: Set<String> = [
            "type", "id", "kind", "document", "start", "end", "quote", "prefix", "suffix", "note", "color", "tags",
            "createdAt", "updatedAt", "deleted", "edition", "anchorEdition",
        ]
        static let position: Set<String> = ["type", "document", "passage", "offset", "updatedAt"]
    }

    /// The archive was written by a newer version of marginalia.
    struct NewerVersion: Error, CustomStringConvertible {
        let found: Int64
        var description: String {
            "created by a newer version of marginalia (archive format \(found); this version reads up to "
                + "\(ArchiveFormat.version)); upgrade marginalia to read it"
        }
    }

    static func header(_ object: JSONObject) throws -> ArchiveHeader {
        guard case .string(let format)? = object["format"], format == ArchiveFormat.name else {
            throw FieldError(field: "format", reason: "must be \"\(ArchiveFormat.name)\"")
        }
        guard case .int(let version)? = object["formatVersion"], version >= 1 else {
            throw FieldError(field: "formatVersion", reason: "must be a positive integer")
        }
        // Checked before the other keys: a newer format may well have keys this version does not know.
        guard version <= ArchiveFormat.version else { throw NewerVersion(found: version) }
        var required: Set<String> = ["type", "format", "formatVersion", "device", "createdAt", "schemaVersion",
                                     "editions", "partial"]
        if version >= ArchiveFormat.headVersion { required.insert("head") }
        try FieldReader.checkKeys(object, required: required, optional: ["filter"])
        let device = try ChangeCodec.machineID(object["device"], field: "device")
        let createdAt = try FieldReader.string(object["createdAt"] ?? .null, field: "createdAt")
        guard Timestamp.parseISO8601(createdAt) != nil else {
            throw FieldError(field: "createdAt", reason: "must be an ISO 8601 time")
        }
        guard case .int(let schemaVersion)? = object["schemaVersion"], schemaVersion >= 1 else {
            throw FieldError(field: "schemaVersion", reason: "must be a positive integer")
        }
        guard case .array(let editionValues)? = object["editions"] else {
            throw FieldError(field: "editions", reason: "must be an array of edition ids")
        }
        guard editionValues.count <= 10_000 else {
            throw FieldError(field: "editions", reason: "lists more than 10000 editions")
        }
        let editions = try editionValues.map { try FieldReader.identifier($0, field: "editions") }
        guard case .bool(let partial)? = object["partial"] else {
            throw FieldError(field: "partial", reason: "must be true or false")
        }
        var filter: [String: String] = [:]
        if let value = object["filter"] {
            guard case .object(let filterObject) = value else {
                throw FieldError(field: "filter", reason: "must be an object")
            }
            for (key, value) in filterObject {
                guard key == "document" || key == "since" else {
                    throw FieldError(field: "filter.\(key)", reason: "unknown field")
                }
                filter[key] = try FieldReader.string(value, field: "filter.\(key)")
            }
        }
        var head: LogHead?
        if let value = object["head"] {
            guard case .object(let headObject) = value else {
                throw FieldError(field: "head", reason: "must be an object with seq and digest")
            }
            try FieldReader.checkKeys(headObject, required: ["seq", "digest"], path: "head.")
            guard case .int(let sequence)? = headObject["seq"], sequence >= 0 else {
                throw FieldError(field: "head.seq", reason: "must be a non-negative integer")
            }
            let digest = try FieldReader.string(headObject["digest"] ?? .null, field: "head.digest")
            guard ChangeDigest.bytes(ofHex: digest) != nil else {
                throw FieldError(field: "head.digest", reason: "must be 64 lowercase hexadecimal digits")
            }
            head = LogHead(sequence: sequence, digest: digest)
        }
        return ArchiveHeader(formatVersion: version, device: device, createdAt: createdAt, schemaVersion: schemaVersion,
                             editions: editions, partial: partial, filter: filter, head: head)
    }

    /// Checks an annotation state record's shape (its values are compared with the replay elsewhere).
    static func checkAnnotation(_ object: JSONObject) throws {
        try FieldReader.checkKeys(object, required: Keys.annotation)
        _ = try ChangeCodec.machineID(object["id"], field: "id")
        let kind = try FieldReader.string(object["kind"] ?? .null, field: "kind")
        guard AnnotationKind(rawValue: kind) != nil else {
            throw FieldError(field: "kind", reason: "unknown kind \"\(kind)\"")
        }
        for key in ["document", "edition", "anchorEdition"] {
            _ = try FieldReader.identifier(object[key] ?? .null, field: key)
        }
        _ = try FieldReader.position(object["start"] ?? .null, field: "start")
        _ = try FieldReader.position(object["end"] ?? .null, field: "end")
        _ = try FieldReader.text(object["quote"] ?? .null, field: "quote", maxBytes: FieldLimits.maxTextBytes)
        for key in ["prefix", "suffix"] {
            _ = try FieldReader.text(object[key] ?? .null, field: key, maxBytes: FieldLimits.maxContextLength * 4)
        }
        if object["note"] != .null {
            _ = try FieldReader.text(object["note"] ?? .null, field: "note", maxBytes: FieldLimits.maxTextBytes)
        }
        if object["color"] != .null {
            try FieldReader.checkLabel(try FieldReader.string(object["color"] ?? .null, field: "color"), field: "color")
        }
        guard case .array(let tags)? = object["tags"] else {
            throw FieldError(field: "tags", reason: "must be an array")
        }
        for tag in tags { try FieldReader.checkLabel(try FieldReader.string(tag, field: "tags"), field: "tags") }
        for key in ["createdAt", "updatedAt"] {
            guard Timestamp.parseISO8601(try FieldReader.string(object[key] ?? .null, field: key)) != nil else {
                throw FieldError(field: key, reason: "must be an ISO 8601 time")
            }
        }
        guard case .bool? = object["deleted"] else {
            throw FieldError(field: "deleted", reason: "must be true or false")
        }
    }

    static func checkPosition(_ object: JSONObject) throws {
        try FieldReader.checkKeys(object, required: Keys.position)
        _ = try FieldReader.identifier(object["document"] ?? .null, field: "document")
        _ = try FieldReader.identifier(object["passage"] ?? .null, field: "passage")
        _ = try FieldReader.offset(object["offset"] ?? .null, field: "offset")
        guard Timestamp.parseISO8601(
            try FieldReader.string(object["updatedAt"] ?? .null, field: "updatedAt")
        ) != nil else {
            throw FieldError(field: "updatedAt", reason: "must be an ISO 8601 time")
        }
    }

    static func trailer(_ object: JSONObject) throws -> ArchiveCounts {
        try FieldReader.checkKeys(object, required: ["type", "counts"])
        guard case .object(let counts)? = object["counts"] else {
            throw FieldError(field: "counts", reason: "must be an object")
        }
        try FieldReader.checkKeys(counts, required: ["change", "annotation", "position"], path: "counts.")
        func count(_ key: String) throws -> Int {
            guard case .int(let value)? = counts[key], value >= 0, value <= Int64(Int32.max) else {
                throw FieldError(field: "counts.\(key)", reason: "must be a non-negative integer")
            }
            return Int(value)
        }
        return ArchiveCounts(changes: try count("change"), annotations: try count("annotation"),
                             positions: try count("position"))
    }
}
