/// What this store knows of the files of sync folders: those it wrote or applied whole (`sync_files`), those it
/// looked at and left (`sync_seen`: damaged segments, leftovers), and how far into its log it has published.
/// A part of its own over the connection it is given; the sync round reads and records through it.
struct SyncLedger {
    let db: any Database

    /// A file this store wrote or applied.
    struct KnownFile {
        var size: Int64
        var written: Bool
        var log: String
        var range: ClosedRange<Int64>
        /// When it was recorded (ISO 8601).
        var recordedAt: String
        /// The SHA-256 (hex) of its bytes as written or applied.
        var sha256: String = ""
    }

    /// A file looked at and left, as it was then.
    struct SeenFile: Equatable {
        enum State: String { case damaged, leftover }
        var state: State
        var size: Int64
        var modified: Int64
        var line: Int?
        var reason: String
    }

    /// The files written or applied, by `device/name`.
    func known() throws -> [String: KnownFile] {
        var files: [String: KnownFile] = [:]
        try db.forEachRow(
            sql: "SELECT device, name, size, origin, log, first_seq, last_seq, recorded_at, sha256 FROM sync_files"
        ) { row in
            let first = try row.int64(5)
            files["\(try row.string(0))/\(try row.string(1))"] = KnownFile(
                size: try row.int64(2), written: try row.string(3) == "written", log: try row.string(4),
                range: first...max(first, try row.int64(6)), recordedAt: try row.string(7),
                sha256: row.optionalString(8) ?? "")
        }
        return files
    }

    /// Records a file as written by this store or applied whole.
    func record(device: String, name: String, size: Int64, sha256: String, written: Bool, header: SegmentHeader,
                changes: Int, at time: String) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO sync_files
                    (device, name, size, sha256, origin, log, first_seq, last_seq, changes, recorded_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [device, name, size, sha256, written ? "written" : "applied", header.log,
                        header.firstSequence, header.lastSequence, Int64(changes), time])
        try forget(device: device, name: name)
    }

    /// Whether the files of `device` already applied (or written) cover every sequence number of `range`: a
    /// compaction's file of them then holds nothing new, and is recorded without being read.
    func covers(_ range: ClosedRange<Int64>, of device: String, in known: [String: KnownFile]) -> Bool {
        let ranges = known.filter { $0.key.hasPrefix("\(device)/") }.map(\.value.range).sorted {
            $0.lowerBound < $1.lowerBound
        }
        var next = range.lowerBound
        for covered in ranges where covered.lowerBound <= next {
            if covered.upperBound >= next { next = covered.upperBound + 1 }
            if next > range.upperBound { return true }
        }
        return false
    }

    /// The files looked at and left, by `device/name`.
    func seen() throws -> [String: SeenFile] {
        var files: [String: SeenFile] = [:]
        try db.forEachRow(sql: "SELECT device, name, state, size, modified, line, reason FROM sync_seen") { row in
            guard let state = SeenFile.State(rawValue: try row.string(2)) else { return }
            files["\(try row.string(0))/\(try row.string(1))"] = SeenFile(
                state: state, size: try row.int64(3), modified: try row.int64(4),
                line: row.optionalInt(5), reason: try row.string(6))
        }
        return files
    }

    /// Remembers a file left as it is now, so that the next round neither reads nor reports it again unchanged.
    func note(device: String, name: String, _ file: SeenFile, at time: String) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO sync_seen (device, name, size, modified, state, line, reason, seen_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [device, name, file.size, file.modified, file.state.rawValue,
                        file.line.map { DatabaseValue.integer(Int64($0)) } ?? .null, file.reason, time])
    }

    /// Forgets a file left (gone, replaced, or now applied).
    func forget(device: String, name: String) throws {
        try db.execute(sql: "DELETE FROM sync_seen WHERE device = ? AND name = ?", arguments: [device, name])
    }

    // MARK: - Publishing

    /// How far into its log `device` has published through this folder: the last sequence number its segments
    /// cover (0 before its first, or after it took a new device id or a new log).
    func published(device: String, log: String) throws -> Int64 {
        guard let text = try RosterLedger(db: db).setting("published") else { return 0 }
        let parts = text.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, parts[0] == device, parts[1] == log, let sequence = Int64(parts[2]) else { return 0 }
        return sequence
    }

    /// Records that `device` has published its log through `sequence`.
    func setPublished(device: String, log: String, through sequence: Int64) throws {
        try RosterLedger(db: db).setSetting("published", "\(device)\t\(log)\t\(sequence)")
    }
}

// MARK: - Encryption

extension SyncLedger {
    /// The recipients this store encrypts its segments to in the folder at `root` (its absolute path); none when it
    /// writes them plain. Kept in `sync_settings` under `recipients`: a JSON object of folder paths and their
    /// recipients (`age1…`).
    /// - Throws: `MarginaliaError` `.corruptStore` when the stored value does not read.
    ///
    /// Encryption is the store's, not a path's: a store that encrypts in one folder encrypts wherever it syncs, so
    /// that the same folder reached by another path (renamed, bind-mounted, mounted elsewhere) never receives a
    /// plain segment. The recipients are kept under `"*"`; a store that remembered them by folder path (before)
    /// encrypts to those of every path.
    func recipients(forFolder root: String) throws -> [AgeRecipient] {
        let stored = try storedRecipients()
        let values: [JSONValue]
        if case .array(let all)? = stored["*"] {
            values = all
        } else {
            values = stored.values.flatMap { value -> [JSONValue] in
                if case .array(let list) = value { return list }
                return []
            }
        }
        var recipients: [AgeRecipient] = []
        for value in values {
            guard case .string(let text) = value, let recipient = try? AgeRecipient(text: text) else {
                throw Self.corruptRecipients
            }
            if !recipients.contains(recipient) { recipients.append(recipient) }
        }
        return recipients
    }

    /// Remembers `recipients` for every folder, in place of those before; none forgets them (then the store writes
    /// plain, a choice made explicitly).
    func setRecipients(_ recipients: [AgeRecipient], forFolder root: String) throws {
        let folders: JSONObject = recipients.isEmpty ? JSONObject()
            : JSONObject([("*", .array(recipients.map { .string($0.encoded) }))])
        try RosterLedger(db: db).setSetting("recipients", try JSONWriter.encodeString(.object(folders)))
    }

    private func storedRecipients() throws -> JSONObject {
        guard let text = try RosterLedger(db: db).setting("recipients") else {
            return JSONObject()
        }
        guard case .object(let folders)? = try? JSONParser.parse(Array(text.utf8)) else { throw Self.corruptRecipients }
        return folders
    }

    private static let corruptRecipients = MarginaliaError(category: .corruptStore, reason: .other(
        "the store's sync recipients (sync_settings recipients) do not read as a JSON object of folders and age "
            + "recipients"))
}
