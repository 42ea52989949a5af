import Foundation

/// What a file's first bytes say it is: the one place the project sniffs file headers.
///
/// Used to open a store, to attach content, to refuse an archive that is something else, and to refuse writing
/// over a file that must not be replaced.
enum FileSignature: Equatable {
    /// An empty file.
    case empty
    /// A gzip stream (or its truncated first byte).
    case gzip
    /// An SQLite database; `applicationID` is nil when the file ends before the header's application id.
    case sqlite(applicationID: Int32?)
    /// An SQLite write-ahead log.
    case sqliteWAL
    /// A ZIP archive.
    case zip
    /// An age-encrypted file (an encrypted backup): "age-encryption.org/v1" and a line feed.
    case age
    /// Uncompressed JSON (an object or array, after an optional byte order mark and white space).
    case json
    /// Anything else.
    case other

    /// How many leading bytes `classify` looks at.
    static let headerLength = 100

    /// Classifies a file from its first bytes (up to `headerLength`, fewer only for a shorter file).
    static func classify(_ head: UnsafeRawBufferPointer) -> FileSignature {
        guard let first = head.first else { return .empty }
        // RFC 1952: a gzip member starts with ID1 = 31 (0x1f), ID2 = 139 (0x8b). A single 0x1f is a truncated one.
        if first == 0x1f && (head.count == 1 || head[1] == 0x8b) { return .gzip }
        // "Every valid SQLite database file begins with the following 16 bytes (in hex): 53 51 4c 69 74 65 20 66
        // 6f 72 6d 61 74 20 33 00" and "The 4-byte big-endian integer at offset 68 is an 'Application ID'"
        // https://www.sqlite.org/fileformat2.html#the_database_header
        if head.starts(with: Array("SQLite format 3\u{0}".utf8)) {
            guard head.count >= 72 else { return .sqlite(applicationID: nil) }
            let id = (UInt32(head[68]) << 24) | (UInt32(head[69]) << 16) | (UInt32(head[70]) << 8) | UInt32(head[71])
            return .sqlite(applicationID: Int32(bitPattern: id))
        }
        // "The WAL header is 32 bytes in size … Magic number. 0x377f0682 or 0x377f0683"
        // https://www.sqlite.org/fileformat2.html#walformat
        if head.count >= 4 && head[0] == 0x37 && head[1] == 0x7f && head[2] == 0x06 && (head[3] & 0xfe) == 0x82 {
            return .sqliteWAL
        }
        // "The first line of the header is age-encryption.org/ followed by an arbitrary version string"
        // (the age specification, "Header"); version 1 is what age and Marginalia write.
        if head.starts(with: Array("age-encryption.org/v1\n".utf8)) { return .age }
        // Local file header, empty archive (end of central directory), and spanned archive signatures.
        let zipSignatures: [[UInt8]] = [[0x50, 0x4b, 3, 4], [0x50, 0x4b, 5, 6], [0x50, 0x4b, 7, 8]]
        if zipSignatures.contains(where: { head.starts(with: $0) }) { return .zip }
        var text = head[...]
        if text.starts(with: [0xef, 0xbb, 0xbf]) { text = text.dropFirst(3) }
        // JSON whitespace: space, tab, line feed, carriage return.
        if let firstSignificant = text.first(where: { ![0x20, 0x09, 0x0a, 0x0d].contains($0) }),
           firstSignificant == UInt8(ascii: "{") || firstSignificant == UInt8(ascii: "[") {
            return .json
        }
        return .other
    }

    /// Classifies the file at `path` from its first bytes; nil when it cannot be opened or read.
    static func of(fileAt path: String) -> FileSignature? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        // read(upToCount:) returns nil at the end of the file: an empty file.
        guard let head = try? handle.read(upToCount: headerLength) ?? Data() else { return nil }
        return head.withUnsafeBytes { classify($0) }
    }

    /// `of(fileAt:)`, with the application id of an SQLite database taken from its write-ahead log when the log
    /// holds a newer first page than the file (a store that was never checkpointed has id 0 in its file).
    static func of(databaseAt path: String) -> FileSignature? {
        let signature = of(fileAt: path)
        guard case .sqlite = signature, let id = applicationIDInLog(path + "-wal") else { return signature }
        return .sqlite(applicationID: id)
    }

    /// The application id in the last copy of page 1 a write-ahead log holds, if any.
    ///
    /// "The WAL header is 32 bytes in size … 8: Database page size", each frame "a 24-byte frame-header followed
    /// by a page-size bytes of page data", the frame header starting with "Page number".
    /// https://www.sqlite.org/fileformat2.html#walformat
    private static func applicationIDInLog(_ wal: String) -> Int32? {
        guard let handle = FileHandle(forReadingAtPath: wal) else { return nil }
        defer { try? handle.close() }
        func bigEndian(_ bytes: Data, _ at: Int) -> UInt32 {
            bytes.dropFirst(at).prefix(4).reduce(0) { ($0 << 8) | UInt32($1) }
        }
        guard let header = try? handle.read(upToCount: 32), header.count == 32,
              header.withUnsafeBytes({ classify($0) }) == .sqliteWAL else { return nil }
        let pageSize = UInt64(bigEndian(header, 8))
        guard pageSize >= 512 else { return nil }
        var offset: UInt64 = 32
        var found: Int32?
        while (try? handle.seek(toOffset: offset)) != nil,
              let frame = try? handle.read(upToCount: 24 + 72), frame.count == 24 + 72 {
            if bigEndian(frame, 0) == 1 { found = Int32(bitPattern: bigEndian(frame, 24 + 68)) }
            offset += 24 + pageSize
        }
        return found
    }

    /// Whether this is an SQLite database.
    var isSQLite: Bool {
        if case .sqlite = self { return true }
        return false
    }

    /// What a user would call this file, for an SQLite database or log; nil for other files.
    var databaseDescription: String? {
        switch self {
        case .sqlite(let id) where id == ApplicationID.store: return "a Marginalia store"
        case .sqlite(let id) where id == ApplicationID.content: return "a Marginalia content database"
        case .sqlite: return "an SQLite database"
        case .sqliteWAL: return "an SQLite write-ahead log"
        default: return nil
        }
    }
}

/// The `application_id` each kind of Marginalia database carries in its header (`PRAGMA application_id`), by
/// which a file is known before it is opened.
enum ApplicationID {
    /// A user database (a store).
    static let store: Int32 = 0x4D52_4755
    /// A content database.
    static let content: Int32 = 0x4D52_4743
}
