/// The layout of a sync folder: a manifest, and one directory of immutable segment files per device.
///
///     FOLDER/marginalia-sync.json                      the manifest (format, version, minimum reader version)
///     FOLDER/devices/<device-id>/<first>-<last>-<nonce>.jsonl.gz
///
/// A segment is gzip JSON Lines in the archive's record format: a header naming the writer and the range of its
/// log it holds, its change records, and a trailer with their count. Only the device named by a directory writes
/// in it, and only new files (written as `.name….tmp`, flushed, then renamed); no file is rewritten in place.
package enum SyncFormat {
    /// The manifest's `format`.
    package static let name = "marginalia-sync"
    /// The folder format version this build writes, and the newest it reads.
    package static let version: Int64 = 1
    /// The oldest reader version that can read a folder this build writes.
    package static let minimumReaderVersion: Int64 = 1
    /// The manifest's file name in the folder.
    package static let manifestName = "marginalia-sync.json"
    /// The directory in the folder holding one directory per device.
    package static let devicesDirectory = "devices"
    /// The segment header's `format`.
    static let segmentFormat = "marginalia-sync-segment"
    /// The segment format version this build writes, and the newest it reads: 2 lets a change record carry
    /// `madeAt` (archive format 3), which a reader of version 1 would refuse as an unknown field.
    static let segmentVersion: Int64 = 2
    /// How many of its own segments a store keeps before it folds them into one.
    package static let compactionThreshold = 64
    /// The largest segment file read (compressed bytes).
    static let maxSegmentBytes: Int64 = 1 << 30

    /// The manifest as this build writes it.
    static var manifest: JSONValue {
        .object(JSONObject([
            ("format", .string(name)), ("formatVersion", .int(version)),
            ("minReaderVersion", .int(minimumReaderVersion)),
        ]))
    }

    /// The name of a segment holding `first...last` of its writer's log; `nonce` keeps two copies of one store
    /// from ever writing the same name.
    static func segmentName(first: Int64, last: Int64, nonce: String) -> String {
        func padded(_ value: Int64) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, 12 - digits.count)) + digits
        }
        return "\(padded(first))-\(padded(last))-\(nonce).jsonl.gz"
    }

    /// Whether `name` is a segment's final name: 12 digits, `-`, 12 digits, `-`, 8 lowercase hex digits,
    /// `.jsonl.gz`.
    static func isSegmentName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count == 12 + 1 + 12 + 1 + 8 + 9, name.hasSuffix(".jsonl.gz") else { return false }
        func digits(_ range: Range<Int>) -> Bool { bytes[range].allSatisfy { $0 >= 48 && $0 <= 57 } }
        let hex = bytes[26..<34].allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
        return digits(0..<12) && bytes[12] == 45 && digits(13..<25) && bytes[25] == 45 && hex
    }

    /// Why a file in a device directory that is not a segment's final name is not read, in words: what a sync
    /// tool or another program left there.
    static func pendingReason(forName name: String) -> String {
        if name.hasSuffix(".icloud") { return "an iCloud placeholder: the file is not downloaded yet" }
        if name.hasPrefix(".syncthing.") || name.hasPrefix("~syncthing~") {
            return "a Syncthing temporary file: a copy in progress"
        }
        if name.contains(".sync-conflict-") || name.contains("conflicted copy") || name.contains("Conflict")
            || name.contains("conflict") {
            return "a conflict copy made by a sync tool: a duplicate, never read"
        }
        if name.hasPrefix(".") || name.hasSuffix(".tmp") || name.hasSuffix(".part") || name.hasSuffix(".partial") {
            return "a temporary file: a write or copy in progress"
        }
        return "not a segment file name"
    }
}

/// The first line of a segment: who wrote it and which part of the writer's log it holds.
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

    var json: JSONValue {
        .object(JSONObject([
            ("type", .string("header")), ("format", .string(SyncFormat.segmentFormat)),
            ("formatVersion", .int(formatVersion)), ("device", .string(device)), ("log", .string(log)),
            ("firstSeq", .int(firstSequence)), ("lastSeq", .int(lastSequence)), ("createdAt", .string(createdAt)),
        ]))
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
                                     "createdAt"]
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
        self.init(formatVersion: version, device: device, log: log, firstSequence: first, lastSequence: last,
                  createdAt: createdAt)
    }

    init(formatVersion: Int64 = SyncFormat.version, device: String, log: String, firstSequence: Int64,
         lastSequence: Int64, createdAt: String) {
        self.formatVersion = formatVersion
        self.device = device
        self.log = log
        self.firstSequence = firstSequence
        self.lastSequence = lastSequence
        self.createdAt = createdAt
    }
}
