/// The kinds of id the store makes and prints short: each is taken back whole or as a unique prefix.
public enum IDKind: String, Sendable, CaseIterable {
    /// An annotation's id (`annotations.id`).
    case annotation
    /// A device's id: this store's own, or one that made a change in its log.
    case device
    /// A change's id (`changes.change_id`).
    case change

    /// The noun in messages, singular or plural.
    func noun(_ count: Int = 1) -> String { count == 1 ? rawValue : rawValue + "s" }
}

/// How ids are taken back from what a person typed.
public enum IDPrefix {
    /// The fewest characters a prefix must have: fewer would too often name several ids.
    public static let minimumLength = 4
    /// How many matches an ambiguous prefix's error lists.
    public static let listedMatches = 10
}

extension StoreConnection {
    /// The full id of the `kind` that `text` names: the id itself, or a unique prefix of at least
    /// `IDPrefix.minimumLength` characters, compared ignoring ASCII case.
    ///
    /// - Throws: `StoreError.idPrefixTooShort`, `.ambiguousID` (naming the matches), `.annotationNotFound` or
    ///   `.idNotFound`.
    func resolveID(_ text: String, kind: IDKind) throws -> String {
        if try isID(text, kind: kind) { return text }
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

    /// Whether `text` is exactly an id of `kind` (an index lookup for annotations and changes).
    private func isID(_ text: String, kind: IDKind) throws -> Bool {
        switch kind {
        case .annotation:
            return try db.int(sql: "SELECT 1 FROM annotations WHERE id = ?", arguments: [text]) != nil
        case .change:
            return try db.int(sql: "SELECT 1 FROM changes WHERE change_id = ?", arguments: [text]) != nil
        case .device:
            if text == deviceID { return true }
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
            if deviceID.lowercased().hasPrefix(prefix.lowercased()) && !devices.contains(deviceID) {
                devices.append(deviceID)
                devices.sort()
            }
            return limit < 0 ? devices : Array(devices.prefix(limit))
        }
    }
}
