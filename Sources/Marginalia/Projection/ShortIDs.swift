/// How ids are taken back from what a person typed.
package enum IDPrefix {
    /// The fewest characters a prefix must have: fewer would too often name several ids.
    package static let minimumLength = 4
    /// How many matches an ambiguous prefix's error lists.
    package static let listedMatches = 10
    /// The fewest characters of an id the tool prints (`AnnotationStore.abbreviatedIDs`): more when the store
    /// holds another id of the same kind that starts with the same characters.
    package static let printedLength = 8
}

/// Ids as a person types them and reads them: a unique prefix taken back to the full id (`resolve`), and each id
/// printed as short as the store lets it be told apart (`abbreviated`). Annotations, changes and devices alike.
struct ShortIDs {
    /// The connection the ids are looked up on.
    let db: any Database
    /// This store's own device id, which names a device before the store has made any change.
    let ownDevice: String

    /// The full id of the `kind` that `text` names: the id itself, a device's name (for a device), or a unique
    /// prefix of at least `IDPrefix.minimumLength` characters, compared ignoring ASCII case.
    ///
    /// - Throws: `StoreError.idPrefixTooShort`, `.ambiguousID` (naming the matches), `.annotationNotFound` or
    ///   `.idNotFound`.
    func resolve(_ text: String, kind: IDKind) throws -> String {
        if try isID(text, kind: kind) { return text }
        if kind == .device, let named = try device(named: text) { return named }
        guard text.count >= IDPrefix.minimumLength else {
            throw StoreError.idPrefixTooShort(prefix: text, kind: kind, minimum: IDPrefix.minimumLength)
        }
        let matches = try ids(startingWith: text, kind: kind, limit: IDPrefix.listedMatches + 1)
        switch matches.count {
        case 0:
            throw kind == .annotation
                ? StoreError.annotationNotFound(id: text) : StoreError.idNotFound(id: text, kind: kind)
        case 1:
            return matches[0]
        default:
            let total = matches.count > IDPrefix.listedMatches
                ? try ids(startingWith: text, kind: kind, limit: nil).count : matches.count
            throw StoreError.ambiguousID(prefix: text, kind: kind,
                                         matches: Array(matches.prefix(IDPrefix.listedMatches)), count: total)
        }
    }

    /// The device whose name (`device name`, a change of the log) is `name`; nil when none has it.
    /// - Throws: `StoreError.ambiguousID` when several devices have it.
    private func device(named name: String) throws -> String? {
        let named = try db.fetchAll(sql: "SELECT id FROM devices WHERE name = ? ORDER BY id", arguments: [name]) {
            try $0.string(0)
        }
        guard named.count > 1 else { return named.first }
        throw StoreError.ambiguousID(prefix: name, kind: .device, matches: named, count: named.count)
    }

    /// Whether `text` is exactly an id of `kind` (an index lookup for annotations and changes).
    private func isID(_ text: String, kind: IDKind) throws -> Bool {
        switch kind {
        case .annotation:
            return try db.int(sql: "SELECT 1 FROM annotations WHERE id = ?", arguments: [text]) != nil
        case .change:
            return try db.int(sql: "SELECT 1 FROM changes WHERE change_id = ?", arguments: [text]) != nil
        case .device:
            if text == ownDevice { return true }
            return try db.int(sql: "SELECT 1 FROM devices WHERE id = ?", arguments: [text]) != nil
        }
    }

    /// The ids of `kind` that start with `prefix` ignoring ASCII case, in order, at most `limit` of them.
    ///
    /// LIKE compares ignoring case: "SQLite only understands upper/lower case for ASCII characters by default.
    /// The LIKE operator is case sensitive by default for unicode characters that are beyond the ASCII range"
    /// and "If the optional ESCAPE clause is present, then the expression following the ESCAPE keyword must
    /// evaluate to a string consisting of a single character" https://www.sqlite.org/lang_expr.html#like
    private func ids(startingWith prefix: String, kind: IDKind, limit: Int?) throws -> [String] {
        var escaped = ""
        for character in prefix {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        let pattern = escaped + "%"
        let limit = limit ?? -1
        switch kind {
        case .annotation:
            return try db.fetchAll(
                sql: "SELECT id FROM annotations WHERE id LIKE ? ESCAPE '\\' ORDER BY id LIMIT ?",
                arguments: [pattern, limit]) { try $0.string(0) }
        case .change:
            return try db.fetchAll(
                sql: "SELECT change_id FROM changes WHERE change_id LIKE ? ESCAPE '\\' ORDER BY change_id LIMIT ?",
                arguments: [pattern, limit]) { try $0.string(0) }
        case .device:
            var devices = try db.fetchAll(
                sql: "SELECT id FROM devices WHERE id LIKE ? ESCAPE '\\' ORDER BY id",
                arguments: [pattern]) { try $0.string(0) }
            if ownDevice.lowercased().hasPrefix(prefix.lowercased()) && !devices.contains(ownDevice) {
                devices.append(ownDevice)
                devices.sort()
            }
            return limit < 0 ? devices : Array(devices.prefix(limit))
        }
    }
}

// MARK: - The short form of an id

extension ShortIDs {
    /// The shortest prefix of each of `ids`, at least `IDPrefix.printedLength` characters, that no other id of
    /// `kind` in the store starts with, ignoring ASCII case: the form `resolveID` takes back to that id, as git
    /// abbreviates object names. An id that is itself the start of a longer one is given whole.
    ///
    /// Each id costs two index lookups, its neighbours before and after it in id order: the id that shares the
    /// longest prefix with it is one of them. Ids are compared in binary order, so an id that differs from
    /// another only in the ASCII case of its first characters is not seen there; the ids the store makes are
    /// lowercase, and a prefix that still names two ids is refused by `resolve` with both listed.
    func abbreviated(_ ids: some Sequence<String>, kind: IDKind) throws -> [String: String] {
        var result: [String: String] = [:]
        for id in ids where result[id] == nil {
            result[id] = try abbreviated(id, kind: kind)
        }
        return result
    }

    /// The shortest unique prefix of one id (see `abbreviated(_:kind:)` of many ids); a device named rather than
    /// numbered (an import's, `import-kindle`) is given whole.
    func abbreviated(_ id: String, kind: IDKind) throws -> String {
        if kind == .device && !Self.isUUIDShaped(id) { return id }
        var shared = 0
        for neighbour in try neighbours(of: id, kind: kind) where neighbour != id {
            shared = max(shared, Self.sharedPrefixLength(id, neighbour))
        }
        var bytes = Array(id.utf8)
        var length = min(bytes.count, max(IDPrefix.printedLength, shared + 1))
        // A prefix ends between characters: never inside a character's UTF-8 bytes (10xxxxxx continue one).
        while length < bytes.count && bytes[length] & 0xC0 == 0x80 { length += 1 }
        bytes.removeSubrange(length...)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The ids of `kind` just before and just after `id` in id order (through the index on the id), and for
    /// devices also this store's own id, which `resolve` takes as a device's.
    ///
    /// The order is the bytes': "BINARY - Compares string data using memcmp(), regardless of text encoding"
    /// (https://www.sqlite.org/datatype3.html#collation), so ids sharing a prefix sit next to each other; and
    /// "SQLite attempts to use an index to satisfy the ORDER BY clause of a query when possible"
    /// (https://www.sqlite.org/optoverview.html#order_by_optimizations), so each is one search of the index
    /// (`QueryPlanTests`).
    private func neighbours(of id: String, kind: IDKind) throws -> [String] {
        let (table, column) = switch kind {
        case .annotation: ("annotations", "id")
        case .change: ("changes", "change_id")
        case .device: ("devices", "id")
        }
        let decode: (Row) throws -> String = { try $0.string(0) }
        let found = try [
            db.fetchOne(sql: "SELECT \(column) FROM \(table) WHERE \(column) < ? ORDER BY \(column) DESC LIMIT 1",
                        arguments: [id], decode),
            db.fetchOne(sql: "SELECT \(column) FROM \(table) WHERE \(column) > ? ORDER BY \(column) LIMIT 1",
                        arguments: [id], decode),
        ].compactMap { $0 }
        return kind == .device ? found + [ownDevice] : found
    }

    /// Whether `id` has a UUID's shape: 36 characters, hyphens at 8, 13, 18 and 23.
    private static func isUUIDShaped(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        return bytes.count == 36 && [8, 13, 18, 23].allSatisfy { bytes[$0] == 0x2D }
    }

    /// How many leading bytes `a` and `b` have in common, ignoring ASCII case as LIKE does.
    private static func sharedPrefixLength(_ a: String, _ b: String) -> Int {
        var count = 0
        for (x, y) in zip(a.utf8, b.utf8) {
            let foldedX = (0x41...0x5A).contains(x) ? x | 0x20 : x
            let foldedY = (0x41...0x5A).contains(y) ? y | 0x20 : y
            guard foldedX == foldedY else { break }
            count += 1
        }
        return count
    }
}
