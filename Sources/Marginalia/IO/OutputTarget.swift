import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file a command is about to write, resolved and checked before anything is written.
///
/// Symbolic links are followed to the real file, whose directory gets the temporary file and whose name the
/// rename replaces: a link stays a link and is written through. Refused whatever is asked: a Marginalia store, a
/// content database (unless `replaceContent` and `force`) or any other SQLite database or log, the protected
/// store's own `-wal`, `-shm`, `-journal` and dated `.bak` files (by any path), a directory, a FIFO, a device and a
/// socket. An existing plain file is replaced only with `force`, an earlier archive (plain or age-encrypted) also
/// with `replaceArchive`.
package struct OutputTarget: Equatable, Sendable {
    /// What may be replaced besides a new file.
    package struct Policy: Equatable, Sendable {
        /// Replace an existing plain file (`--force`).
        package var force = false
        /// Replace an existing gzip archive, or an age-encrypted one, without `force` (a backup replaces an earlier
        /// backup, encrypted or not).
        package var replaceArchive = false
        /// Replace a content database, with `force` (rebuilding content).
        package var replaceContent = false
        /// A store whose files are never written over, by whatever path they are named.
        package var store: String?
        /// Further files never written over, each with what it is.
        package var others: [(path: String, what: String)] = []

        /// A policy with the given permissions; `store` names the store whose files are protected (none for
        /// `:memory:`).
        package init(force: Bool = false, replaceArchive: Bool = false, replaceContent: Bool = false,
                    store: String? = nil, others: [(path: String, what: String)] = []) {
            self.force = force
            self.replaceArchive = replaceArchive
            self.replaceContent = replaceContent
            self.store = store == ":memory:" ? nil : store
            self.others = others
        }

        /// Whether two policies allow and protect the same files.
        package static func == (left: Policy, right: Policy) -> Bool {
            left.force == right.force && left.replaceArchive == right.replaceArchive
                && left.replaceContent == right.replaceContent && left.store == right.store
                && left.others.map(\.path) == right.others.map(\.path)
        }
    }

    /// The path as given.
    package let requested: String
    /// The real file to replace or create (symbolic links resolved, its directory absolute).
    package let path: String
    /// Whether a file is there now.
    package let exists: Bool
    /// The mode the new file gets: 0600, or the replaced file's when that is tighter.
    package let mode: mode_t
    /// The policy it was checked with.
    package let policy: Policy

    /// Resolves `requested` and checks it against `policy`.
    /// - Throws: `OutputRefusal` naming the path and what it is; `IOError` when it cannot be examined.
    package static func resolve(_ requested: String, policy: Policy = Policy()) throws -> OutputTarget {
        let path = try realPath(of: requested)
        var info = stat()
        guard lstat(path, &info) == 0 else {
            guard errno == ENOENT else { throw IOError.posix("stat", path: path) }
            try refuseProtected(path, requested: requested, info: nil, policy: policy)
            return OutputTarget(requested: requested, path: path, exists: false, mode: PrivateFiles.fileMode,
                                policy: policy)
        }
        func refuse(_ what: String, _ remedy: OutputRefusal.Remedy? = nil) -> OutputRefusal {
            OutputRefusal(requested, path, what: what, remedy: remedy)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw refuse(FileKind.words(for: info.st_mode), .nameAFile)
        case S_IFIFO, S_IFCHR, S_IFBLK: throw refuse(FileKind.words(for: info.st_mode), .streamInstead)
        default: throw refuse(FileKind.words(for: info.st_mode))
        }
        try refuseProtected(path, requested: requested, info: info, policy: policy)
        guard let signature = FileSignature.of(databaseAt: path) else {
            throw refuse("a file that cannot be read, so it cannot be told from a store")
        }
        if signature == .sqlite(applicationID: ApplicationID.content), policy.replaceContent {
            guard policy.force else { throw refuse("a Marginalia content database", .forceRebuild) }
        } else if let database = signature.databaseDescription {
            throw refuse(database, .anotherFile)
        } else if !([.gzip, .age].contains(signature) && policy.replaceArchive) && !policy.force {
            throw refuse("an existing file", .force)
        }
        return OutputTarget(requested: requested, path: path, exists: true,
                            mode: mode_t(info.st_mode) & PrivateFiles.fileMode, policy: policy)
    }

    /// Checks again, just before the new file is renamed into place, that the target may still be replaced.
    package func recheck() throws {
        let again = try Self.resolve(requested, policy: policy)
        guard again.path == path else {
            throw OutputRefusal(path: requested, resolved: again.path, what: "no longer the file it was",
                                remedy: .changedMeanwhile)
        }
    }

    /// Writes the target through a `TemporaryFile` beside the real file: `body` fills it, then it is flushed,
    /// the target checked again and the file renamed over it. On any failure the temporary file is removed and
    /// the target is left as it was. Temporary files that dead processes left beside the target are removed first.
    package func write<T>(purpose: String, _ body: (TemporaryFile) throws -> T) throws -> T {
        TemporaryFile.removeStale(beside: path)
        let temporary = try TemporaryFile(beside: path, purpose: purpose, mode: mode)
        do {
            let result = try body(temporary)
            try temporary.sync()
            try recheck()
            try temporary.moveIntoPlace(at: path)
            return result
        } catch {
            temporary.remove()
            throw error
        }
    }

    // MARK: - Resolving

    /// The path made absolute.
    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    /// Follows symbolic links of the last component to the real file (which may not exist yet), with its
    /// directory made canonical by `realpath(3)`.
    static func realPath(of requested: String) throws -> String {
        guard !requested.isEmpty else { throw OutputRefusal(path: requested, what: "an empty path") }
        if requested.hasSuffix("/") { throw OutputRefusal(path: requested, what: "a directory", remedy: .nameAFile) }
        var current = absolute(requested)
        var followed = 0
        while true {
            var info = stat()
            guard lstat(current, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { break }
            followed += 1
            // Linux's own limit on links followed in one lookup (path_resolution(7)).
            guard followed <= 40 else { throw OutputRefusal(path: requested, what: "a loop of symbolic links") }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, buffer.count - 1)
            guard count >= 0 else { throw IOError.posix("readlink", path: current) }
            let target = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = target.hasPrefix("/") ? target : FileSync.parentDirectory(of: current) + "/" + target
        }
        let directory = FileSync.parentDirectory(of: current)
        let name = String(current[current.index(after: current.lastIndex(of: "/") ?? current.startIndex)...])
        guard let real = realpath(directory, nil) else { throw IOError.posix("open", path: directory) }
        defer { free(real) }
        let canonical = String(cString: real)
        guard name != "." && name != ".." else { throw OutputRefusal(path: requested, what: "a directory") }
        return (canonical == "/" ? "" : canonical) + "/" + name
    }

    /// Refuses the protected store's files and the policy's other files, compared by device and inode when both
    /// exist and by resolved path otherwise.
    private static func refuseProtected(_ path: String, requested: String, info: stat?, policy: Policy) throws {
        var protected = policy.others
        if let store = policy.store {
            let names = [store] + ((try? realPath(of: store)).map { [$0] } ?? [])
            for name in names {
                protected += [(name, "the store itself"), (name + "-wal", "the store's write-ahead log"),
                              (name + "-shm", "the store's shared-memory file"),
                              (name + "-journal", "the store's rollback journal")]
                if FileSync.parentDirectory(of: path) == FileSync.parentDirectory(of: name),
                   isBackupName(String(path.split(separator: "/").last ?? ""), of: name) {
                    throw OutputRefusal(requested, path, what: "a previous store kept by restore",
                                        remedy: .anotherFile)
                }
            }
        }
        for (file, what) in protected {
            var other = stat()
            let same: Bool
            if let info, stat(file, &other) == 0 {
                same = info.st_dev == other.st_dev && info.st_ino == other.st_ino
            } else {
                same = (try? realPath(of: file)) == path
            }
            if same {
                throw OutputRefusal(requested, path, what: what, remedy: .anotherFile)
            }
        }
    }

    /// Whether `name` is one of the dated names restore keeps a previous store under: `user.db.<stamp>.bak`,
    /// `user.db.<stamp>-2.bak` and their `-wal`/`-shm`.
    static func isBackupName(_ name: String, of store: String) -> Bool {
        let base = String(store.split(separator: "/").last ?? "") + "."
        guard name.hasPrefix(base) else { return false }
        var rest = name.dropFirst(base.count)
        for suffix in ["-wal", "-shm", "-journal"] where rest.hasSuffix(suffix) { rest = rest.dropLast(suffix.count) }
        return rest.hasSuffix(".bak") && rest.count > 4
    }
}
