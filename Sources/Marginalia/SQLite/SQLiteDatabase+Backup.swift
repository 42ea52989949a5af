internal import CSQLite

extension SQLiteDatabase {
    /// Replaces this connection's main database with a copy of `source`'s, page by page, through SQLite's
    /// online backup API, in one write transaction of this database.
    ///
    /// "SQLite holds a write transaction open on the destination database file for the duration of the backup
    /// operation" and "The first call to sqlite3_backup_step() obtains an exclusive lock on the destination
    /// file. The exclusive lock is not released until either sqlite3_backup_finish() is called or the backup
    /// operation is complete": other connections keep reading the old content until the copy commits, and
    /// writers wait (their busy handler) rather than write into a database being replaced.
    /// https://www.sqlite.org/c3ref/backup_finish.html
    ///
    /// - Parameters:
    ///   - pagesPerStep: pages copied per step; the destination stays locked between steps.
    ///   - onceLocked: runs after the destination's write lock is taken and before any page is copied; no other
    ///     connection can commit to this database while it runs. Throwing abandons the copy.
    ///   - afterStep: runs after each step that left pages to copy, with the number of steps so far; throwing
    ///     abandons the copy.
    /// - Throws: `SQLiteError`; the copy is then abandoned and "any active write-transaction on the destination
    ///   database is rolled back", so the destination holds its old content.
    package func replaceContents(with source: SQLiteDatabase, pagesPerStep: Int32 = 256,
                                onceLocked: () throws -> Void = {},
                                afterStep: (Int) throws -> Void = { _ in }) throws {
        guard try source.int(sql: "PRAGMA main.page_count") ?? 0 > 0 else {
            throw SQLiteError(extendedCode: SQLITE_EMPTY, message: "the source database is empty")
        }
        guard let backup = sqlite3_backup_init(handle, "main", source.handle, "main") else {
            throw SQLiteDatabase.error(database: handle, code: sqlite3_errcode(handle), sql: nil)
        }
        var finished = false
        defer { if !finished { sqlite3_backup_finish(backup) } }
        // "If sqlite3_backup_step() cannot obtain a required file-system lock, then the busy-handler function is
        // invoked": a busy result here means this connection's busy timeout ran out. It, like every other error,
        // ends the copy.
        func step(_ pages: Int32) throws -> Bool {
            let rc = sqlite3_backup_step(backup, pages)
            if rc == SQLITE_DONE { return true }
            guard rc == SQLITE_OK else {
                finished = true
                sqlite3_backup_finish(backup)
                throw SQLiteError(extendedCode: rc, message: "copying the database: "
                    + String(cString: sqlite3_errstr(rc)))
            }
            return false
        }
        // A step of zero pages takes the locks and copies nothing (the source has pages, so it is not done).
        _ = try step(0)
        try onceLocked()
        var steps = 0
        while try !step(pagesPerStep) {
            steps += 1
            try afterStep(steps)
        }
        finished = true
        // "If an out-of-memory condition or IO error occurred during any prior sqlite3_backup_step() call on the
        // same sqlite3_backup object, then sqlite3_backup_finish() returns the corresponding error code."
        let rc = sqlite3_backup_finish(backup)
        guard rc == SQLITE_OK else { throw SQLiteDatabase.error(database: handle, code: rc, sql: nil) }
        clearStatementCache()
    }
}
