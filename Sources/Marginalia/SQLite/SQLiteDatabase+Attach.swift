internal import CSQLite

extension SQLiteDatabase {
    /// Attaches the database file at `path`, read-only, under the schema name `schema`.
    ///
    /// The file is named by a `mode=ro` URI, so a missing file is an error rather than a new empty database,
    /// and any write to it is refused by SQLite itself: "mode=ro … the database is opened for read-only
    /// access" and "it is an error to specify a value for the mode parameter that is less restrictive than
    /// that specified by the flags passed" https://www.sqlite.org/uri.html
    /// - Throws: `SQLiteError` (`SQLITE_CANTOPEN` for a missing file).
    package func attachReadOnly(path: String, as schema: String) throws {
        try Self.checkSchemaName(schema)
        try execute(sql: "ATTACH DATABASE ? AS \(schema)", arguments: [Self.fileURI(path: path, readOnly: true)])
    }

    /// Detaches a schema attached with `attachReadOnly(path:as:)`.
    package func detach(_ schema: String) throws {
        try Self.checkSchemaName(schema)
        // Cached statements may name the schema; they must be finalized before it can go.
        clearStatementCache()
        try execute(sql: "DETACH DATABASE \(schema)")
    }

    /// Whether a schema of this name is attached.
    package func isAttached(_ schema: String) throws -> Bool {
        var found = false
        try forEachRow(sql: "SELECT name FROM pragma_database_list") { row in
            if try row.string(0) == schema { found = true }
        }
        return found
    }

    /// The `file:` URI that opens `path` (read-only when asked), with the characters URIs reserve
    /// percent-encoded, so that a file name with `?`, `#` or `%` opens the file it names.
    ///
    /// "the path component of the URI … escape sequences of the form "%HH" are converted"; `?` and `#` end the
    /// path, so they and `%` itself must be escaped. https://www.sqlite.org/uri.html
    /// - Parameter vfs: the registered VFS to open it with (tests only: "vfs=NAME … causes the database connection
    ///   to use the VFS named NAME" https://www.sqlite.org/uri.html); nil for the default.
    static func fileURI(path: String, readOnly: Bool, vfs: String? = nil) -> String {
        var encoded = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "."),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2, with: "0")
            }
        }
        // A relative path stays relative: "file:data.db" names data.db in the working directory.
        var parameters: [String] = readOnly ? ["mode=ro"] : []
        if let vfs { parameters.append("vfs=\(vfs)") }
        return parameters.isEmpty ? "file:\(encoded)" : "file:\(encoded)?" + parameters.joined(separator: "&")
    }

    private static func checkSchemaName(_ schema: String) throws {
        let valid = !schema.isEmpty && schema.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || byte == UInt8(ascii: "_")
        }
        guard valid else {
            throw SQLiteError(extendedCode: SQLITE_MISUSE, message: "invalid schema name \(schema)")
        }
    }
}

extension String {
    /// The string padded on the left to `length` characters.
    func leftPadded(to length: Int, with pad: Character) -> String {
        count >= length ? self : String(repeating: pad, count: length - count) + self
    }
}
