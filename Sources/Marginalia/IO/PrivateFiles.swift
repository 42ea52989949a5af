import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files and directories readable by their owner only, whatever the umask: notes are private.
///
/// The mode is set with `fchmod`/`chmod` after creating, because `open(2)` and `mkdir(2)` apply the umask:
/// "the mode of the created file is (mode & ~umask)" https://man7.org/linux/man-pages/man2/open.2.html
package enum PrivateFiles {
    /// The mode of every file the project creates.
    package static let fileMode: mode_t = 0o600
    /// The mode of every directory the project creates.
    package static let directoryMode: mode_t = 0o700

    /// Creates `path` and any missing parent directories, each 0700; existing ones are left as they are.
    ///
    /// The XDG base directory specification asks the same of the data directory: "If, when attempting to write a
    /// file, the destination directory is non-existent an attempt should be made to create it with permission
    /// 0700." https://specifications.freedesktop.org/basedir-spec/latest/
    package static func createDirectories(_ path: String) throws {
        guard !path.isEmpty, path != ".", path != "/" else { return }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw IOError.posix("mkdir", path: path, code: ENOTDIR) }
            return
        }
        try createDirectories(FileSync.parentDirectory(of: path))
        // An interrupted process makes nothing new: the clean-up may just have removed this very directory (a
        // scratch directory the interrupted work was about to fill), and the process exits in a moment.
        guard !CleanupRegistry.shared.isInterrupting else { throw CleanupRegistry.Interrupted() }
        if mkdir(path, directoryMode) != 0 {
            // Another process may have made it meanwhile.
            guard errno == EEXIST else { throw IOError.posix("mkdir", path: path) }
            return
        }
        guard chmod(path, directoryMode) == 0 else { throw IOError.posix("chmod", path: path) }
    }

    /// Creates `path` as an empty file of mode 0600; a file that appeared meanwhile is left as it is.
    ///
    /// Made before SQLite opens a new store, so that SQLite's own files follow it: "If a connection is required
    /// to create a journal file, it creates it with the same file-system permissions as the database file
    /// itself" and "umask is deliberately ignored for -wal, -journal, and -shm files"
    /// (SQLite's test/journal3.test, https://www.sqlite.org/src/file/test/journal3.test)
    package static func createEmptyFile(_ path: String) throws {
        // As for directories: an interrupted process makes nothing new, lest it make again what was just removed.
        guard !CleanupRegistry.shared.isInterrupting else { throw CleanupRegistry.Interrupted() }
        let descriptor: Int32
        do {
            descriptor = try SystemIO.open(path, flags: O_WRONLY | O_CREAT | O_EXCL, permissions: Int(fileMode))
        } catch let error as IOError where error.code == EEXIST {
            return
        }
        defer { try? SystemIO.close(descriptor, path: path) }
        try setMode(descriptor, fileMode, path: path)
    }

    /// Sets an open file's mode, independent of the umask it was created under.
    static func setMode(_ descriptor: Int32, _ mode: mode_t, path: String) throws {
        guard fchmod(descriptor, mode) == 0 else { throw IOError.posix("fchmod", path: path) }
    }
}
