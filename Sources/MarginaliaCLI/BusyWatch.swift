import Foundation

/// Says on stderr, once and within a few seconds, that a command is waiting for a store another process is writing,
/// and which process that is, while the command goes on waiting (`Context.busySeconds`) for it to finish.
///
/// It looks at the store's write lock as SQLite keeps it in WAL mode, a POSIX advisory lock on one byte of the
/// `-shm` file: "WAL_WRITE_LOCK … 120" (https://www.sqlite.org/walformat.html#wal_locks), held by another process
/// (this one's own never counts, so a command that is merely working is never taken for one that waits).
final class BusyWatch {
    /// The byte of the `-shm` file whose lock is the store's write lock.
    static let writeLockOffset: off_t = 120
    /// How long a command runs before the watch looks.
    static let delay: DispatchTimeInterval = .seconds(2)

    private let timer: DispatchSourceTimer

    /// Starts watching the store at `store` for `console`.
    init(store: String, console: Console) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        timer.schedule(deadline: .now() + Self.delay, repeating: .seconds(1))
        timer.setEventHandler { [timer] in
            guard let holder = Self.writer(of: store) else { return }
            console.err("Waiting for the store \(store): \(Self.describe(holder)) is writing to it; waiting up to "
                + "\(Context.busySeconds) s for it to finish (Ctrl-C stops here, changing nothing)")
            timer.cancel()
        }
        timer.resume()
    }

    /// Stops watching.
    func stop() {
        timer.cancel()
    }

    /// The pid of another process holding the write lock of the store at `store`, if one does.
    ///
    /// Read from `/proc/locks` ("the file locks currently held", proc(5): type, pid, `major:minor:inode`, first and
    /// last byte), never by opening the `-shm` file: closing any descriptor of a file releases every POSIX lock
    /// this process holds on it, SQLite's own among them ("all of the process's locks on that file are released",
    /// fcntl(2)). Nil where there is no `/proc` (the notice is then not given).
    static func writer(of store: String) -> pid_t? {
        var info = stat()
        guard stat(store + "-shm", &info) == 0,
              let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return nil }
        let own = getpid()
        // The device as /proc/locks writes it, "fe:00" (major and minor in hex, as makedev(3) splits st_dev).
        let device = UInt64(info.st_dev)
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        let file = String(format: "%02x:%02x:%llu", major, minor, UInt64(info.st_ino))
        for line in locks.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // "1: POSIX  ADVISORY  WRITE 1046 fe:00:16310776 120 120"; a blocked request is shown with "->".
            guard fields.count >= 8, fields[1] == "POSIX" || fields[1] == "OFDLCK", fields[3] == "WRITE",
                  let pid = pid_t(fields[4]), pid > 0, pid != own,
                  fields[5] == file,
                  let first = Int64(fields[6]), first <= Int64(writeLockOffset),
                  fields[7] == "EOF" || (Int64(fields[7]) ?? -1) >= Int64(writeLockOffset) else { continue }
            return pid
        }
        return nil
    }

    /// "process 4242 (marginalia import notes.jsonl.gz)", from `/proc` where it can be read.
    static func describe(_ pid: pid_t) -> String {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"), !data.isEmpty else {
            return "process \(pid)"
        }
        let words = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        var shown = words.enumerated().map { $0.offset == 0 ? ($0.element as NSString).lastPathComponent : $0.element }
            .joined(separator: " ").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        if shown.count > 80 { shown = String(shown.prefix(79)) + "…" }
        return "process \(pid) (\(Console.shown(shown)))"
    }
}
