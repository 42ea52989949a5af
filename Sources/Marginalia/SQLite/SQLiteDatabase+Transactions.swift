internal import CSQLite

extension SQLiteDatabase {
    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    ///
    /// Called while a transaction is already open, it runs `body` in a savepoint of that transaction instead,
    /// so that store operations compose into one larger transaction (an import, say).
    package func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        if isInTransaction {
            return try savepoint(body)
        }
        try executeScript(sql: "BEGIN \(kind.rawValue)")
        let result: T
        do {
            result = try body()
        } catch {
            rollbackQuietly()
            throw error
        }
        do {
            try executeScript(sql: "COMMIT")
        } catch {
            // "If COMMIT fails with SQLITE_BUSY the transaction remains active"; we give up and roll back so
            // that the caller sees the whole write fail rather than leave a transaction open.
            // https://www.sqlite.org/lang_transaction.html
            rollbackQuietly()
            throw error
        }
        return result
    }

    /// Runs `body` in a savepoint: releases it when `body` returns, rolls back to it when `body` throws.
    package func savepoint<T>(_ body: () throws -> T) throws -> T {
        let name = "marginalia_\(savepointDepth)"
        // Prepared once per depth and cached: a batch of writes opens one savepoint per write.
        try execute(sql: "SAVEPOINT \(name)")
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        do {
            let result = try body()
            try execute(sql: "RELEASE \(name)")
            return result
        } catch {
            try? executeScript(sql: "ROLLBACK TO \(name)")
            try? executeScript(sql: "RELEASE \(name)")
            throw error
        }
    }

    private func rollbackQuietly() {
        // Some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM…) roll the transaction back automatically; a
        // ROLLBACK then fails with "no transaction is active", which is harmless.
        // https://www.sqlite.org/lang_transaction.html#response_to_errors_within_a_transaction
        if isInTransaction {
            try? executeScript(sql: "ROLLBACK")
        }
    }
}
