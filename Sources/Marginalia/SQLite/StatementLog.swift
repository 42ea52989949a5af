import Foundation

/// The SQL of the statements connections prepare, kept while a test watches the database files it names: how the
/// query-plan test learns every statement the store runs, to explain each one's plan (`EXPLAIN QUERY PLAN`).
///
/// Each connection prepares a statement once and then reuses it (`SQLiteDatabase`'s cache), so the log holds each
/// statement a connection ran, once. Nothing is kept unless a file is watched.
final class StatementLog: @unchecked Sendable {
    static let shared = StatementLog()

    private let lock = NSLock()
    private var watched: Set<String> = []
    private var statements: [String: Set<String>] = [:]

    /// Keeps the statements prepared from now on by connections to `path` (or to an SQLite URI naming it).
    func watch(_ path: String) {
        lock.withLock {
            watched.insert(path)
            statements[path] = statements[path] ?? []
        }
    }

    /// Stops watching `path` and returns the statements kept for it.
    func stopWatching(_ path: String) -> Set<String> {
        lock.withLock {
            watched.remove(path)
            return statements.removeValue(forKey: path) ?? []
        }
    }

    func record(_ sql: String, location: String) {
        lock.lock()
        defer { lock.unlock() }
        guard !watched.isEmpty else { return }
        for path in watched where location == path || location.hasPrefix("file:" + path) {
            statements[path, default: []].insert(sql)
        }
    }
}
