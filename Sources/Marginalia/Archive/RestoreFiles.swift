import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files a restore reads and writes: the live store (its real path, mode and health), the dated `.bak`,
/// and the scratch database.
enum RestoreFiles {
    /// The store being replaced, with symbolic links followed.
    struct LiveStore {
        /// The real file's path (the link's target for a symbolic link); the store itself when it is missing.
        var path: String
        var exists: Bool
        /// The permission bits of the existing store.
        var mode: mode_t
    }

    /// Follows symbolic links to the file a restore must write; refuses a link to nothing and a directory.
    static func resolveLiveStore(_ storePath: String) throws -> LiveStore {
        var info = stat()
        guard stat(storePath, &info) == 0 else {
            var link = stat()
            if lstat(storePath, &link) == 0 {
                throw StoreError.notAStore(path: storePath, reason: "it is a symbolic link to a missing file")
            }
            return LiveStore(path: storePath, exists: false, mode: 0o600)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw StoreError.notAStore(path: storePath, reason: "it is not a regular file")
        }
        guard let resolved = realpath(storePath, nil) else { throw IOError.posix("realpath", path: storePath) }
        defer { free(resolved) }
        return LiveStore(path: String(cString: resolved), exists: true, mode: info.st_mode & 0o777)
    }

    /// Nil for a healthy Marginalia store (or an empty database); why it is damaged when SQLite cannot read it
    /// or its quick check fails. A database of another application is refused.
    static func damage(of path: String) throws -> String? {
        let db: SQLiteDatabase
        do {
            db = try SQLiteDatabase(path: SQLiteDatabase.fileURI(path: path, readOnly: false), mode: .readWrite)
            let applicationID = Int32(truncatingIfNeeded: try db.int(sql: "PRAGMA application_id") ?? 0)
            let objects = try db.int(sql: "SELECT count(*) FROM sqlite_schema") ?? 0
            if applicationID != UserSchema.applicationID && (applicationID != 0 || objects != 0) {
                throw StoreError.notAStore(path: path, reason: applicationID == ApplicationID.content
                    ? "it is a content database; restore will not replace it"
                    : "its application_id is \(applicationID); restore will not replace it")
            }
            var problems: [String] = []
            try db.forEachRow(sql: "PRAGMA main.quick_check") { row in
                let line = try row.string(0)
                if line != "ok" { problems.append(line) }
            }
            return problems.isEmpty ? nil : "quick_check: " + problems.prefix(3).joined(separator: "; ")
        } catch let error as SQLiteError where error.isCorrupt {
            return error.message
        }
    }

    /// Refuses to create a store beside a write-ahead log left without its database: SQLite would apply it.
    static func refuseOrphanedLog(of path: String) throws {
        var info = stat()
        if stat(path + "-wal", &info) == 0 && info.st_size > 0 {
            throw StoreError.notAStore(path: path, reason: "there is no store but its write-ahead log \(path)-wal "
                + "is there; move it away before restoring")
        }
    }

    static func setMode(of path: String, to mode: mode_t) throws {
        guard chmod(path, mode) == 0 else { throw IOError.posix("chmod", path: path) }
    }

    /// A fresh dated name beside the store: `user.db.20261129T121441Z.bak`, then `-2`, `-3`… in the same second.
    static func bakPath(for store: String) -> String {
        // 2026-11-29T12:14:41.123Z → 20261129T121441Z
        let stamp = Timestamp.iso8601(milliseconds: Timestamp.nowMilliseconds()).prefix(19)
            .replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "") + "Z"
        var previous = "\(store).\(stamp).bak"
        var attempt = 1
        var info = stat()
        while lstat(previous, &info) == 0 {
            attempt += 1
            previous = "\(store).\(stamp)-\(attempt).bak"
        }
        return previous
    }

    /// Copies the live store, as a new read transaction on another connection sees it, to a new `.bak` (mode
    /// 0600, or the store's own when tighter) through the online backup API, and makes it durable.
    ///
    /// The copy is written to a temporary file and renamed to the `.bak` only once whole and synced: a `.bak`
    /// under its name is always a complete copy, and the half-written copy of a killed restore is a temporary
    /// file that the next command removes. The name is free when chosen and stays free: this runs under the
    /// store's write lock, which another restore of it would need first.
    static func copyToBak(_ live: LiveStore) throws -> String {
        let temporary = try TemporaryFile(beside: live.path, purpose: "bak", mode: live.mode & 0o600 | 0o200)
        defer { temporary.remove() }
        do {
            let reader = try SQLiteDatabase(
                path: SQLiteDatabase.fileURI(path: live.path, readOnly: true), mode: .readOnly)
            let copy = try SQLiteDatabase(
                path: SQLiteDatabase.fileURI(path: temporary.path, readOnly: false), mode: .readWrite)
            // All pages in one step: one read transaction of the source, so one consistent snapshot.
            try copy.replaceContents(with: reader, pagesPerStep: -1)
        }
        try setMode(of: temporary.path, to: live.mode & 0o600)
        let bak = bakPath(for: live.path)
        try temporary.moveIntoPlace(at: bak)
        return bak
    }

    /// Keeps a damaged store (that no one has open) under a dated name: a hard link, so that the live name is
    /// swapped in one rename; where links are unsupported, a rename. Its write-ahead log moves along.
    static func keepDamagedStore(_ path: String) throws -> String {
        let previous = bakPath(for: path)
        if link(path, previous) != 0 {
            guard rename(path, previous) == 0 else { throw IOError.posix("rename", path: path) }
        }
        let wal = path + "-wal"
        var info = stat()
        if stat(wal, &info) == 0 && info.st_size > 0 {
            guard rename(wal, previous + "-wal") == 0 else { throw IOError.posix("rename", path: wal) }
        }
        for leftover in [wal, path + "-shm"] { unlink(leftover) }
        try FileSync.syncDirectory(containing: previous)
        return previous
    }
}

extension RestoreFiles {
    /// Proof that no other process has a store open: write locks over the whole of the database file and of its
    /// `-shm`, where SQLite keeps its own locks, held until `release()`.
    ///
    /// SQLite's unix VFS takes POSIX advisory locks on byte ranges of the database file during transactions,
    /// and on the `-shm` (the wal-index) while a connection to a WAL database is open; see "Locking" in
    /// https://www.sqlite.org/walformat.html. A process holding the store open in WAL mode is therefore seen
    /// here; one with a rollback-journal store open outside a transaction is not (it holds no lock). Linux's
    /// open file description locks: "Conflicting lock combinations … where one lock is an open file description
    /// lock and the other is a traditional record lock conflict even when they are acquired by the same process",
    /// and they "are only automatically released on the last close of the open file description, instead of
    /// being released on any close of the file": this check neither misses this process's own SQLite locks nor
    /// drops them. https://man7.org/linux/man-pages/man2/fcntl.2.html
    struct ExclusiveUse {
        private var descriptors: [Int32] = []

        init(store path: String, damage: String) throws {
            for file in [path, path + "-shm"] {
                var exists = stat()
                if file != path && stat(file, &exists) != 0 { continue }
                let descriptor: Int32
                do {
                    descriptor = try SystemIO.open(file, flags: O_RDWR | O_CLOEXEC)
                } catch {
                    release()
                    throw error
                }
                descriptors.append(descriptor)
                var lock = flock()
                lock.l_type = Int16(F_WRLCK)
                lock.l_whence = Int16(SEEK_SET)
                lock.l_start = 0
                lock.l_len = 0
                if fcntl(descriptor, Self.setLockCommand, &lock) != 0 {
                    release()
                    throw StoreError.notAStore(path: path, reason: "it is damaged (\(damage)) and another process "
                        + "has it open; close it and restore again")
                }
            }
        }

        func release() {
            for descriptor in descriptors { try? SystemIO.close(descriptor, path: "") }
        }

        #if os(Linux)
        /// F_OFD_SETLK (glibc's fcntl.h).
        private static let setLockCommand: Int32 = 37
        #else
        private static let setLockCommand: Int32 = F_SETLK
        #endif
    }
}
