/// A value stored in or bound to an SQLite column: one of SQLite's five storage classes.
package enum DatabaseValue: Equatable, Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A Swift type that converts to a `DatabaseValue`, so it can be bound as a statement argument.
package protocol DatabaseValueConvertible {
    var databaseValue: DatabaseValue { get }
}

extension DatabaseValue: DatabaseValueConvertible {
    /// The value itself.
    package var databaseValue: DatabaseValue { self }
}

extension String: DatabaseValueConvertible {
    /// The string, as TEXT.
    package var databaseValue: DatabaseValue { .text(self) }
}

extension Substring: DatabaseValueConvertible {
    /// The substring, as TEXT.
    package var databaseValue: DatabaseValue { .text(String(self)) }
}

extension Int: DatabaseValueConvertible {
    /// The integer, as INTEGER.
    package var databaseValue: DatabaseValue { .integer(Int64(self)) }
}

extension Int64: DatabaseValueConvertible {
    /// The integer, as INTEGER.
    package var databaseValue: DatabaseValue { .integer(self) }
}

extension Int32: DatabaseValueConvertible {
    /// The integer, as INTEGER.
    package var databaseValue: DatabaseValue { .integer(Int64(self)) }
}

extension Double: DatabaseValueConvertible {
    /// The number, as REAL.
    package var databaseValue: DatabaseValue { .real(self) }
}

extension Bool: DatabaseValueConvertible {
    /// 1 for true, 0 for false, as INTEGER (SQLite has no boolean type).
    package var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
}

extension Array: DatabaseValueConvertible where Element == UInt8 {
    /// The bytes, as a BLOB.
    package var databaseValue: DatabaseValue { .blob(self) }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    /// The wrapped value, or NULL for nil.
    package var databaseValue: DatabaseValue {
        switch self {
        case .none: return .null
        case .some(let wrapped): return wrapped.databaseValue
        }
    }
}

/// Statement arguments, written as an array literal at the call site: `arguments: [id, note, nil]`.
package struct StatementArguments: ExpressibleByArrayLiteral, Sendable {
    /// The values, in the order of the statement's parameters.
    package var values: [DatabaseValue]

    /// Arguments with the given values.
    package init(_ values: [DatabaseValue]) {
        self.values = values
    }

    /// Arguments from an array literal; nil is NULL.
    package init(arrayLiteral elements: (any DatabaseValueConvertible)?...) {
        values = elements.map { $0?.databaseValue ?? .null }
    }
}
