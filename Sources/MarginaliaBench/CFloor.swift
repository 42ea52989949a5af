// The C-API floors: the same SQL the library runs, through sqlite3_prepare_v2/bind/step from this process.
// This is the one place outside the library that imports CSQLite, an exception to the layering rule (which is
// about the library and the CLI): a floor has to bypass the library to show what the schema itself costs.
import CSQLite
import Foundation
import Marginalia

/// A bare connection, with every return code checked.
final class CConnection {
    let handle: OpaquePointer

    init(path: String, readOnly: Bool = false) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX | (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE)
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            sqlite3_close_v2(handle)
            throw BenchError("cannot open \(path): \(String(cString: sqlite3_errstr(rc)))")
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    func execute(_ sql: String) throws {
        try check(sqlite3_exec(handle, sql, nil, nil, nil), sql)
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v2(handle, sql, -1, &statement, nil), sql)
        guard let statement else { throw BenchError("empty statement: \(sql)") }
        return statement
    }

    /// Copies the database at `source` to `destination`, page by page, with the online backup API:
    /// "sqlite3_backup_step() … copies up to N pages between the source and destination databases"
    /// https://www.sqlite.org/c3ref/backup_finish.html
    static func backup(_ source: String, to destination: String) throws {
        let from = try CConnection(path: source, readOnly: true)
        var handle: OpaquePointer?
        guard sqlite3_open_v2(destination, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK,
              let handle else {
            sqlite3_close_v2(handle)
            throw BenchError("cannot create \(destination)")
        }
        let to = CConnection(handle: handle)
        guard let backup = sqlite3_backup_init(to.handle, "main", from.handle, "main") else {
            throw BenchError("cannot back up \(source): \(String(cString: sqlite3_errmsg(to.handle)))")
        }
        let rc = sqlite3_backup_step(backup, -1)
        sqlite3_backup_finish(backup)
        guard rc == SQLITE_DONE else { throw BenchError("backup of \(source) failed with \(rc)") }
    }

    private init(handle: OpaquePointer) {
        self.handle = handle
    }

    func check(_ rc: Int32, _ sql: String) throws {
        guard rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW else {
            throw BenchError("SQLite error \(rc) (\(String(cString: sqlite3_errmsg(handle)))) in: \(sql)")
        }
    }
}

/// Rows as the library wrote them, packed into one arena so that binding copies nothing (SQLITE_STATIC).
final class PackedRows {
    enum Value {
        case text(offset: Int, count: Int)
        case blob(offset: Int, count: Int)
        case integer(Int64)
        case real(Double)
        case null
    }

    private(set) var rows: [[Value]] = []
    private let arena: UnsafeMutableRawPointer

    init(_ rows: [[DatabaseValue]]) {
        var size = 0
        for row in rows {
            for value in row {
                switch value {
                case .text(let text): size += text.utf8.count + 1
                case .blob(let bytes): size += bytes.count
                default: break
                }
            }
        }
        let arena = UnsafeMutableRawPointer.allocate(byteCount: max(size, 1), alignment: 8)
        self.arena = arena
        var used = 0
        self.rows = rows.map { row in
            row.map { value in
                switch value {
                case .text(let text):
                    let count = text.utf8.count
                    let target = UnsafeMutableRawBufferPointer(start: arena + used, count: count + 1)
                    target.copyBytes(from: text.utf8)
                    target[count] = 0
                    defer { used += count + 1 }
                    return .text(offset: used, count: count)
                case .blob(let bytes):
                    UnsafeMutableRawBufferPointer(start: arena + used, count: bytes.count).copyBytes(from: bytes)
                    defer { used += bytes.count }
                    return .blob(offset: used, count: bytes.count)
                case .integer(let number): return .integer(number)
                case .real(let number): return .real(number)
                case .null: return .null
                }
            }
        }
    }

    deinit {
        arena.deallocate()
    }

    func bind(_ row: Int, to statement: OpaquePointer) -> Int32 {
        for (index, value) in rows[row].enumerated() {
            let position = Int32(index + 1)
            let rc: Int32
            switch value {
            case .text(let offset, let count):
                // SQLITE_STATIC (a nil destructor): the arena outlives the statement's use of the bytes.
                rc = sqlite3_bind_text(statement, position,
                                       arena.advanced(by: offset).assumingMemoryBound(to: CChar.self),
                                       Int32(count), nil)
            case .blob(let offset, let count):
                rc = sqlite3_bind_blob(statement, position, arena.advanced(by: offset), Int32(count), nil)
            case .integer(let number): rc = sqlite3_bind_int64(statement, position, number)
            case .real(let number): rc = sqlite3_bind_double(statement, position, number)
            case .null: rc = sqlite3_bind_null(statement, position)
            }
            if rc != SQLITE_OK { return rc }
        }
        return SQLITE_OK
    }
}

/// What one create wrote: its `changes` row and its new `annotations` row, as stored (schema 5: the log's clock
/// packed in an integer, its device a number of `devices`, the annotation's clocks a blob naming devices by number,
/// the annotation's `number` left to SQLite as the library leaves it), and the devices those numbers stand for.
struct CreatedRows {
    static let changeColumns = "change_id, hlc, device, entity, entity_id, op, fields, digest"
    static let annotationColumns = """
        id, kind, document, start_passage, start_offset, end_passage, end_offset, quote, prefix, suffix, \
        created_edition, anchor_edition, note, color, tags, deleted, created_hlc, updated_hlc, clocks
        """
    var changes: [[DatabaseValue]] = []
    var annotations: [[DatabaseValue]] = []
    /// The `devices` rows the rows above name, by number: the same in every store they were read from.
    var devices: [Int64: String] = [:]

    /// Where the log and the annotations end now, to read what a batch adds after it.
    static func marks(store path: String) throws -> (seq: Int64, number: Int64) {
        let db = try SQLiteDatabase(path: path, mode: .readOnly)
        return (try db.int(sql: "SELECT coalesce(max(seq), 0) FROM changes") ?? 0,
                try db.int(sql: "SELECT coalesce(max(number), 0) FROM annotations") ?? 0)
    }

    /// Appends the rows a batch of creates wrote after `marks`, and the devices of the store.
    /// - Throws: when the store numbers a device otherwise than a store read before: the rows copied name devices
    ///   by number, so they must mean the same devices in the floor's store.
    mutating func append(store path: String, after marks: (seq: Int64, number: Int64)) throws {
        let db = try SQLiteDatabase(path: path, mode: .readOnly)
        func values(_ row: Row) -> [DatabaseValue] { (0..<row.count).map { row.value(at: $0) } }
        var read = CreatedRows()
        try db.forEachRow(sql: "SELECT number, id FROM devices") { row in
            read.devices[try row.int64(0)] = try row.string(1)
        }
        read.changes = try db.fetchAll(
            sql: "SELECT \(Self.changeColumns) FROM changes WHERE seq > ? AND op = 'create' ORDER BY seq",
            arguments: [marks.seq], values)
        read.annotations = try db.fetchAll(
            sql: "SELECT \(Self.annotationColumns) FROM annotations WHERE number > ? ORDER BY number",
            arguments: [marks.number], values)
        guard read.changes.count == read.annotations.count else {
            throw BenchError("a create batch in \(path) wrote \(read.changes.count) creates but "
                + "\(read.annotations.count) annotations")
        }
        try append(read)
    }

    /// Appends the rows and devices of `other`, read from another store (`append(store:after:)`).
    /// - Throws: when `other` numbers a device otherwise than the rows here.
    mutating func append(_ other: CreatedRows) throws {
        for (number, id) in other.devices {
            if let known = devices.updateValue(id, forKey: number), known != id {
                throw BenchError("device number \(number) is \(known) in one store and \(id) in another")
            }
        }
        changes += other.changes
        annotations += other.annotations
    }
}

enum CFloor {
    /// Inserts every create's two rows into the store at `path` (FTS triggers firing as they do), in one
    /// transaction, or one transaction per annotation; returns the seconds from BEGIN to the last COMMIT. The store
    /// is an empty one, or a copy of the library's store from just before it wrote the rows. The devices the rows
    /// name are inserted before the clock starts, those the store lacks: a row per device, which the library writes
    /// once, with the first change of the device.
    /// - Throws: when the store numbers one of the rows' devices otherwise.
    static func insertCreates(_ rows: CreatedRows, into path: String, transactionPerAnnotation: Bool,
                              cacheKiB: Int = 0) throws -> Double {
        let changes = PackedRows(rows.changes)
        let annotations = PackedRows(rows.annotations)
        let db = try CConnection(path: path)
        // The store's durability: WAL (persistent in the file) and synchronous=FULL, as UserDatabase sets them.
        // Statement journals in memory, the fastest setting that changes nothing on disk: this is the floor.
        try db.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA temp_store = MEMORY")
        if cacheKiB > 0 { try db.execute("PRAGMA cache_size = -\(cacheKiB)") }
        let devices = PackedRows(rows.devices.sorted { $0.key < $1.key }.map { [.integer($0.key), .text($0.value)] })
        let insertDevice = try db.prepare("INSERT INTO devices (number, id) VALUES (?, ?) ON CONFLICT DO NOTHING")
        let insertChange = try db.prepare(
            "INSERT INTO changes (\(CreatedRows.changeColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        let insertAnnotation = try db.prepare("""
            INSERT INTO annotations (\(CreatedRows.annotationColumns))
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        defer {
            sqlite3_finalize(insertDevice)
            sqlite3_finalize(insertChange)
            sqlite3_finalize(insertAnnotation)
        }
        func step(_ statement: OpaquePointer, _ packed: PackedRows, _ row: Int) throws {
            try db.check(packed.bind(row, to: statement), "bind")
            let rc = sqlite3_step(statement)
            guard rc == SQLITE_DONE else { try db.check(rc, "step"); return }
            sqlite3_reset(statement)
        }
        try db.execute("BEGIN IMMEDIATE")
        for row in 0..<devices.rows.count { try step(insertDevice, devices, row) }
        try db.execute("COMMIT")
        let numbered = try SQLiteDatabase(path: path, mode: .readOnly)
            .fetchAll(sql: "SELECT number, id FROM devices") { (try $0.int64(0), try $0.string(1)) }
        for (number, id) in numbered where rows.devices[number].map({ $0 != id }) ?? false {
            throw BenchError(
                "device number \(number) is \(id) in \(path), but \(rows.devices[number] ?? "") in the rows")
        }
        let start = Timing.now()
        if !transactionPerAnnotation { try db.execute("BEGIN IMMEDIATE") }
        for row in 0..<rows.changes.count {
            if transactionPerAnnotation { try db.execute("BEGIN IMMEDIATE") }
            try step(insertChange, changes, row)
            try step(insertAnnotation, annotations, row)
            if transactionPerAnnotation { try db.execute("COMMIT") }
        }
        if !transactionPerAnnotation { try db.execute("COMMIT") }
        return Timing.now() - start
    }
}
