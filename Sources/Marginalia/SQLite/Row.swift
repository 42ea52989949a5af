internal import CSQLite

/// One row of a query result, read column by column.
///
/// A row is a view onto a running statement: it is valid only inside the closure that receives it. Columns
/// are read by index, in the order of the SELECT list, so the SQL at the call site says what each index is.
package struct Row {
    let statement: OpaquePointer
    let sql: String

    /// The number of columns.
    package var count: Int { Int(sqlite3_column_count(statement)) }

    /// The name of column `index`, as the SELECT list gives it.
    package func name(at index: Int) -> String {
        guard let name = sqlite3_column_name(statement, Int32(index)) else { return "" }
        return String(cString: name)
    }

    /// Whether column `index` is NULL.
    package func isNull(_ index: Int) -> Bool {
        sqlite3_column_type(statement, Int32(index)) == SQLITE_NULL
    }

    /// Column `index` as a `DatabaseValue`, keeping its storage class.
    package func value(at index: Int) -> DatabaseValue {
        let column = Int32(index)
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
        case SQLITE_TEXT: return .text(textUnchecked(column))
        case SQLITE_BLOB: return .blob(Array(bytes(at: index)))
        default: return .null
        }
    }

    /// Column `index` as text; throws when it is NULL.
    package func string(_ index: Int) throws -> String {
        guard !isNull(index) else { throw unexpectedNull(index) }
        return textUnchecked(Int32(index))
    }

    /// Column `index` as text, or nil when it is NULL.
    package func optionalString(_ index: Int) -> String? {
        isNull(index) ? nil : textUnchecked(Int32(index))
    }

    /// Column `index` as an integer; throws when it is NULL.
    package func int64(_ index: Int) throws -> Int64 {
        guard !isNull(index) else { throw unexpectedNull(index) }
        return sqlite3_column_int64(statement, Int32(index))
    }

    /// Column `index` as an `Int`; throws when it is NULL.
    package func int(_ index: Int) throws -> Int {
        Int(try int64(index))
    }

    /// Column `index` as an integer, or nil when it is NULL.
    package func optionalInt(_ index: Int) -> Int? {
        isNull(index) ? nil : Int(sqlite3_column_int64(statement, Int32(index)))
    }

    /// Column `index` as a double; throws when it is NULL.
    package func double(_ index: Int) throws -> Double {
        guard !isNull(index) else { throw unexpectedNull(index) }
        return sqlite3_column_double(statement, Int32(index))
    }

    /// Column `index` as a boolean (any non-zero integer is true); throws when it is NULL.
    package func bool(_ index: Int) throws -> Bool {
        try int64(index) != 0
    }

    /// The raw bytes of column `index` (text as UTF-8), valid only during the row's closure.
    ///
    /// For streaming output without building a `String`.
    package func bytes(at index: Int) -> UnsafeRawBufferPointer {
        let column = Int32(index)
        // "call sqlite3_column_blob(), sqlite3_column_text(), or sqlite3_column_text16() first to force the
        // result into the desired format, then invoke sqlite3_column_bytes()"
        // https://www.sqlite.org/c3ref/column_blob.html
        guard let pointer = sqlite3_column_blob(statement, column) else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(statement, column)))
    }

    private func textUnchecked(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(statement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    private func unexpectedNull(_ index: Int) -> SQLiteError {
        SQLiteError(extendedCode: SQLITE_MISMATCH, message: "column \(index) (\(name(at: index))) is NULL", sql: sql)
    }
}
