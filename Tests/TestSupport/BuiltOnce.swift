import Foundation

/// Fixtures made once per test process and shared by every test that asks for them (built contents above all: a
/// content build reads the 5 MB lemma table), as swift-nio's NIOTestUtils shares its fixtures. Each is made in a
/// directory of its own under one process-wide temporary directory, removed when the process exits; a test copies
/// what it will change.
public final class BuiltOnce: @unchecked Sendable {
    public static let shared = BuiltOnce()

    private let lock = NSLock()
    private var values: [String: Result<String, any Error>] = [:]
    /// The process-wide directory, made on first use.
    private lazy var root: String = {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("marginalia-fixtures-\(getpid())-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        BuiltOnce.removedAtExit = path
        atexit {
            if let path = BuiltOnce.removedAtExit { try? FileManager.default.removeItem(atPath: path) }
        }
        return path
    }()
    nonisolated(unsafe) private static var removedAtExit: String?

    /// The fixture named `key`, made by `make` (given a fresh directory of its own) on first use. A failure is
    /// remembered and thrown again to every later caller.
    public func value(for key: String, make: (_ directory: String) throws -> String) throws -> String {
        lock.lock()
        defer { lock.unlock() }
        if let known = values[key] { return try known.get() }
        let directory = "\(root)/\(values.count)"
        let result = Result { () throws -> String in
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            return try make(directory)
        }
        values[key] = result
        return try result.get()
    }
}
