/// The hash chain over the change log: each change row carries the SHA-256 of the previous row's digest and the
/// change's canonical bytes, in the store's own order (`seq`).
///
/// The canonical bytes are the seven stored columns `Change.columns` (change id, clock, device, entity, entity id,
/// operation, canonical fields JSON), then, for a change that has one, its wall time in decimal milliseconds,
/// each as its UTF-8 length in 4 bytes, big-endian, then its bytes; the previous digest comes first as its 32
/// bytes, and the first change follows 32 zero bytes:
///
///     digest(n) = SHA-256(digest(n - 1) ‖ len(change_id) ‖ change_id ‖ … ‖ len(fields) ‖ fields
///                         [‖ len(wall) ‖ wall])
///
/// A change recorded without a wall time (schema 5 and older) keeps the digest it had.
///
/// Editing, deleting, inserting or reordering a past change breaks the chain at that row, whatever the triggers
/// say. A rewrite that also recomputes every later digest is consistent with itself: only a head kept elsewhere
/// (an archive's header, `verify --against`) proves a history up to it unchanged.
enum ChangeDigest {
    /// The digest the first change follows: 32 zero bytes, as hex.
    static let genesis = String(repeating: "0", count: 64)

    /// The digest of a change, stored as `columns` (the texts of `Change.columns`, in order, the wall time as
    /// `Change.wallText`), that follows the change whose digest is `previous` (64 hex digits).
    ///
    /// - Throws: `StoreError.corruptRow` when `previous` is not a digest.
    static func next(after previous: String, columns: [String]) throws -> String {
        var input = try previousBytes(previous)
        for (index, column) in columns.enumerated() where index != Change.Column.wall.rawValue || !column.isEmpty {
            append(column.utf8, to: &input)
        }
        return try SHA256Digest.hex(of: input)
    }

    /// The digest of the change stored in `row` (which selects `Change.columns` first), byte for byte as SQLite
    /// holds it, following `previous` (a digest `next` or `genesis` gave).
    /// - Parameter withWall: the row selects the wall time after the seven columns (false: a log of schema 5 and
    ///   older, which has none).
    static func next(after previous: String, row: Row, withWall: Bool = true) throws -> String {
        var input = bytes(ofHex: previous) ?? []
        for column in 0..<Change.Column.wall.rawValue { append(row.bytes(at: column), to: &input) }
        if withWall, !row.isNull(Change.Column.wall.rawValue) {
            append(String(try row.int64(Change.Column.wall.rawValue)).utf8, to: &input)
        }
        return try SHA256Digest.hex(of: input)
    }

    /// The digest of a change about to be appended as `change` with `fieldsText`, after `previous`: the bytes of
    /// `next(after:columns:)` of its stored texts (`change.changeID` then `storedText(fieldsText:)`), written
    /// into one buffer without making the texts an array first.
    static func next(after previous: String, change: Change, fieldsText: String) throws -> String {
        var input = try previousBytes(previous)
        let hlc = change.hlc.description
        let wall = change.wall.map(String.init)
        let columns = [change.changeID.utf8, hlc.utf8, change.device.utf8, change.entity.rawValue.utf8,
                       change.entityID.utf8, change.operation.rawValue.utf8, fieldsText.utf8]
            + (wall.map { [$0.utf8] } ?? [])
        input.reserveCapacity(input.count + columns.reduce(0) { $0 + 4 + $1.count })
        for column in columns { append(column, to: &input) }
        return try SHA256Digest.hex(of: input)
    }

    /// The 32 bytes of the digest a change follows.
    /// - Throws: `StoreError.corruptRow` when `previous` is not a digest.
    private static func previousBytes(_ previous: String) throws -> [UInt8] {
        guard let bytes = bytes(ofHex: previous) else {
            throw StoreError.corruptRow(reason: "the log's latest change has no valid digest (\(previous.prefix(64)))")
        }
        return bytes
    }

    private static func append(_ column: some Collection<UInt8>, to input: inout [UInt8]) {
        let count = UInt32(truncatingIfNeeded: column.count)
        input.append(UInt8(count >> 24))
        input.append(UInt8((count >> 16) & 0xFF))
        input.append(UInt8((count >> 8) & 0xFF))
        input.append(UInt8(count & 0xFF))
        input.append(contentsOf: column)
    }

    /// The 32 bytes of a digest written as 64 lowercase hex digits; nil for anything else.
    static func bytes(ofHex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count == 64 else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(32)
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = HexDigit.value(of: digits[index]), let low = HexDigit.value(of: digits[index + 1]) else {
                return nil
            }
            result.append(high << 4 | low)
        }
        return result
    }
}
