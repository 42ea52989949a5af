import Foundation

/// Opens a user database: checks that it is a Marginalia store of a version this build can read, then
/// configures it and brings its schema up to date.
enum UserDatabase {
    /// What the caller will do with the store.
    enum Access: Equatable {
        /// Read only: nothing is written, not even a migration; the store must exist.
        case readOnly
        /// Read and write; the store must exist.
        case readWrite
        /// Read and write; the store is created when absent.
        case create
    }

    /// Opens the store at `path` (or `:memory:`).
    ///
    /// A store written by a newer version is refused before anything is written to it, so its bytes stay as
    /// they were. A new store gets a device id and its creation time.
    /// - Parameter vfs: the registered SQLite VFS to open the file with; nil (always, outside tests) for the default.
    /// - Throws: `StoreError` for a missing, foreign or newer store; `SQLiteError` from SQLite.
    ///
    /// - Parameter alreadyOpen: this process has the store open already (a reader beside the writer): the file was
    ///   checked then, and must not be checked again. Closing any descriptor of a file releases every POSIX lock
    ///   the process holds on it — the other connections' too — so that another process could take this one's
    ///   write-ahead log for abandoned and delete it: "if you close a file descriptor … all locks on that file
    ///   held by the process are released" https://www.sqlite.org/howtocorrupt.html#_posix_advisory_locks_canceled_by_a_separate_thread_doing_close_
    static func open(path: String, access: Access, newDeviceID: () -> String = Identifiers.make,
                     vfs: String? = nil, alreadyOpen: Bool = false,
                     configuration: AnnotationStore.Configuration = AnnotationStore.Configuration(),
                     upgraded: (SchemaUpgrade) -> Void = { _ in }) throws -> SQLiteDatabase
    {
        // STRICT tables need SQLite 3.37.0: "STRICT tables … were added in version 3.37.0 (2021-11-27)."
        // https://www.sqlite.org/stricttables.html
        guard SQLiteDatabase.libraryVersionNumber >= UserSchema.minimumSQLiteVersion else {
            throw StoreError.sqliteTooOld(found: SQLiteDatabase.libraryVersion, required: "3.37.0")
        }
        let inMemory = path == ":memory:"
        if !inMemory && !alreadyOpen {
            try checkFile(path: path, mayCreate: access == .create)
        }
        let mode: SQLiteDatabase.OpenMode
        switch access {
        case .readOnly: mode = .readOnly
        case .readWrite: mode = .readWrite
        case .create:
            // `checkFile` made the file (0600) when it was missing: SQLite opens it as it is, and never makes it
            // again, so a file removed meanwhile (an interrupted process's temporary store) stays removed.
            mode = inMemory || alreadyOpen ? .readWriteCreate : .readWrite
        }
        // A store's name is a file name, never a URI: encode it as one.
        var location = inMemory
            ? path : SQLiteDatabase.fileURI(path: path, readOnly: access == .readOnly, vfs: vfs)
        if !inMemory, access == .readOnly, try mustOpenImmutable(path: path) { location += "&immutable=1" }
        let db = try SQLiteDatabase(path: location, mode: mode,
                                    busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds)
        let applicationID: Int32
        let version: Int32
        let objectCount: Int64
        do {
            applicationID = Int32(truncatingIfNeeded: try db.int(sql: "PRAGMA application_id") ?? 0)
            version = Int32(truncatingIfNeeded: try db.int(sql: "PRAGMA user_version") ?? 0)
            objectCount = try db.int(sql: "SELECT count(*) FROM sqlite_schema") ?? 0
        } catch let error as SQLiteError where error.isCorrupt {
            throw StoreError.notAStore(path: path, reason: error.message)
        }
        if applicationID != UserSchema.applicationID {
            guard applicationID == 0, version == 0, objectCount == 0 else {
                let reason = applicationID == 0x4D52_4743
                    ? "it is a content database (use it with --content)"
                    : "its application_id is \(applicationID), not \(UserSchema.applicationID)"
                throw StoreError.notAStore(path: path, reason: reason)
            }
        }
        guard version <= UserSchema.currentVersion else {
            throw StoreError.newerSchema(path: path, found: version, supported: UserSchema.currentVersion)
        }
        if access == .readOnly {
            guard version == UserSchema.currentVersion else {
                return try openOlder(consume db, path: path, version: version, vfs: vfs,
                                     configuration: configuration, upgraded: upgraded)
            }
            return db
        }
        // WAL lets readers go on while a writer commits; with synchronous=FULL every acknowledged commit is
        // on disk: "WAL mode is always consistent with synchronous=NORMAL, but WAL mode does lose durability.
        // A transaction committed in WAL mode with synchronous=NORMAL might roll back following a power loss"
        // https://www.sqlite.org/pragma.html#pragma_synchronous
        if !inMemory {
            let journal = try db.text(sql: "PRAGMA journal_mode = WAL")
            guard journal == "wal" else {
                throw StoreError.notAStore(
                    path: path, reason: "cannot switch to WAL journal mode (got \(journal ?? "nothing"))")
            }
        }
        // Temporary tables hold a whole archive while an import stages it before taking the write lock, so
        // they go to a temporary file, not to memory: "When temp_store is FILE (1) temporary tables and indices
        // are stored in a file" https://www.sqlite.org/pragma.html#pragma_temp_store. That file lives in the
        // page cache until it outgrows it, and "TEMP tables ... are automatically deleted when the database
        // connection is closed" https://www.sqlite.org/tempfiles.html (on Unix it is unlinked once opened, so
        // nothing is left behind after a crash).
        try db.executeScript(sql: "PRAGMA synchronous = \(configuration.synchronous); PRAGMA temp_store = FILE")
        #if canImport(Darwin)
        // On Apple's systems fsync does not reach the medium: "PRAGMA fullfsync … determines whether or not the
        // F_FULLFSYNC syncing method is used on systems that support it." https://www.sqlite.org/pragma.html#pragma_fullfsync
        try db.executeScript(sql: "PRAGMA fullfsync = ON")
        #endif
        let created = try db.int(sql: "PRAGMA user_version") == 0
        try migrate(db, newDeviceID: newDeviceID)
        if created, path != ":memory:", let identity = FileIdentity.of(path) {
            // The file the device id belongs to: a copy of it (another file) takes a new id before it syncs.
            let (owner, name) = AdapterState.storeFile
            try AdapterState(db: db, owner: owner).set(name, to: identity)
        }
        return db
    }

    /// An older store opened to be read (`db`, read-only): upgraded in place when this process may write its file
    /// and directory (a read-write open migrates it, in one transaction), then opened read-only again; otherwise
    /// copied into memory through the online backup and upgraded there, the file left as it was.
    private static func openOlder(_ db: consuming SQLiteDatabase, path: String, version: Int32, vfs: String?,
                                  configuration: AnnotationStore.Configuration,
                                  upgraded: (SchemaUpgrade) -> Void) throws -> SQLiteDatabase
    {
        let target = UserSchema.currentVersion
        if path != ":memory:", access(path, R_OK | W_OK) == 0,
           access(FileSync.parentDirectory(of: path), W_OK | X_OK) == 0 {
            // The read-only connection is closed first: a process that closes any descriptor of a file drops every
            // POSIX lock it holds on it, the writer's too.
            _ = consume db
            _ = try open(path: path, access: .readWrite, vfs: vfs, configuration: configuration)
            let reopened = try open(path: path, access: .readOnly, vfs: vfs, configuration: configuration)
            upgraded(SchemaUpgrade(from: version, to: target, kind: .inPlace))
            return reopened
        }
        let copy = try SQLiteDatabase(path: ":memory:", mode: .readWriteCreate,
                                      busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds)
        try copy.replaceContents(with: db)
        try migrate(copy, newDeviceID: { "" })
        upgraded(SchemaUpgrade(from: version, to: target, kind: .inMemoryCopy))
        return copy
    }

    /// Applies every migration newer than the store's `user_version`, all in one transaction with the
    /// version bump, so a failed migration leaves the store at its old version.
    ///
    /// - Parameter migrations: the schema's migrations; a test passes a failing one.
    static func migrate(_ db: SQLiteDatabase, migrations: [UserSchema.Migration] = UserSchema.migrations,
                        newDeviceID: () -> String) throws {
        guard let target = migrations.last?.version else { return }
        try db.transaction(.immediate) {
            let version = Int32(truncatingIfNeeded: try db.int(sql: "PRAGMA user_version") ?? 0)
            guard version < target else { return }
            for migration in migrations where migration.version > version {
                for step in migration.steps {
                    switch step {
                    case .sql(let sql): try db.executeScript(sql: sql)
                    case .code(let run): try run(db)
                    }
                }
            }
            if version == 0 {
                try db.execute(
                    sql: "INSERT INTO meta (key, value) VALUES ('device_id', ?), ('created_at', ?)",
                    arguments: [newDeviceID(), Timestamp.iso8601(milliseconds: Timestamp.nowMilliseconds())])
            }
            // PRAGMA arguments cannot be bound; both values are integers of this build.
            try db.executeScript(sql: """
                PRAGMA application_id = \(UserSchema.applicationID);
                PRAGMA user_version = \(target);
                """)
        }
    }

    /// Whether a store to be read only must be opened `immutable`: when its directory is not writable and it has
    /// no `-wal`, so that SQLite, which cannot create the `-shm` (WAL index) there, can still read it.
    ///
    /// "If the WAL and WAL-index files are missing, then a process that lacks permission to create and initialize
    /// those files will not be able to open the database, unless the database is designated as immutable using
    /// the immutable query parameter." https://www.sqlite.org/walformat.html
    /// "immutable: … SQLite assumes that the database file cannot be changed, even by a process with higher
    /// privilege, and so the database is opened read-only and all locking and change detection is disabled.
    /// Caution: Setting the immutable property on a database file that does in fact change can result in
    /// incorrect query results and/or SQLITE_CORRUPT errors." https://www.sqlite.org/uri.html
    /// Without a `-wal` no connection has the store open in WAL mode (the last one to close removes it), and no
    /// writer can start where the directory is read-only to it: a writer that can write the directory starting
    /// during the read is the documented caution, and at worst gives this read an error, never a changed store.
    /// With a `-wal` but no `-shm`, the `-wal` may hold committed changes that only a WAL index can make
    /// readable: the store is refused with a message saying so, rather than read without them.
    /// - Throws: `StoreError.unreadable` for a `-wal` without `-shm` in a directory that is not writable.
    private static func mustOpenImmutable(path: String) throws -> Bool {
        // SQLite names the -wal and -shm after the database file with symbolic links resolved.
        let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let directory = (real as NSString).deletingLastPathComponent
        guard access(directory.isEmpty ? "." : directory, W_OK) != 0 else { return false }
        let manager = FileManager.default
        guard manager.fileExists(atPath: real + "-wal") else { return true }
        if manager.fileExists(atPath: real + "-shm") { return false }
        throw StoreError.unreadable(
            path: path, reason: "its directory is not writable, and SQLite needs the WAL index \(real)-shm to "
                + "read the changes in \(real)-wal, but it does not exist and cannot be created there; open the "
                + "store once where its directory is writable, or copy it with its -wal file to such a place")
    }

    /// Refuses a path that is missing (unless it may be created), a directory, or a file that is not an
    /// SQLite database, before SQLite touches it. A file that cannot be read (permission, an I/O error) is
    /// reported as such, with the system's reason. A store that may be created is created here, empty and 0600.
    private static func checkFile(path: String, mayCreate: Bool) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            guard mayCreate else { throw StoreError.storeMissing(path: path) }
            try PrivateFiles.createDirectories(FileSync.parentDirectory(of: path))
            try PrivateFiles.createEmptyFile(path)
            return
        }
        guard !isDirectory.boolValue else { throw StoreError.notAStore(path: path, reason: "it is a directory") }
        let header = try readHeader(path: path)
        switch header.withUnsafeBytes({ FileSignature.classify($0) }) {
        case .empty, .sqlite:
            return
        case .gzip:
            throw StoreError.notAStore(
                path: path,
                reason: "it is gzip-compressed, as an archive is: an archive is restored or imported, not opened")
        default:
            throw StoreError.notAStore(path: path, reason: "it is not an SQLite database")
        }
    }

    /// The first 16 bytes of the file (fewer when it is shorter), read with open(2) and read(2) so that a failure
    /// keeps the system's reason.
    private static func readHeader(path: String) throws -> [UInt8] {
        do {
            let descriptor = try SystemIO.open(path, flags: O_RDONLY)
            defer { _ = close(descriptor) }
            var header = [UInt8](repeating: 0, count: 16)
            var count = 0
            while count < header.count {
                let got = try header.withUnsafeMutableBytes { buffer in
                    try SystemIO.read(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: buffer[count...]),
                                      path: path)
                }
                if got == 0 { break }
                count += got
            }
            return Array(header.prefix(count))
        } catch let error as IOError {
            throw StoreError.unreadable(path: path, reason: "\(error.operation): \(error.message)")
        }
    }
}
