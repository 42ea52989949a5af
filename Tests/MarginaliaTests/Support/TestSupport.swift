import Foundation
@testable import Marginalia
import MarginaliaTestSupport

/// A fresh temporary directory for one test, removed when the value is released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("marginalia-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// The path of `name` inside the directory.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

enum Samples {
    /// The package's `samples` directory.
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("samples")

    /// The path of a file in `samples`.
    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// The package's `schemas` directory.
    static let schemas = directory.deletingLastPathComponent().appendingPathComponent("schemas")

    /// The content database of a sample source in `directory`, returning its path: built once per test process
    /// (a build reads the lemma table) and copied.
    static func buildContent(_ source: String, in directory: TemporaryDirectory) throws -> String {
        let output = directory.path(source.replacingOccurrences(of: ".json", with: ".db"))
        let built = try BuiltOnce.shared.value(for: "content-\(source)") { shared in
            let built = "\(shared)/\(source).db"
            try ContentBuilder.build(try ContentSource(path: path(source)), output: built,
                                     lemmas: path("ro-lemmas.tsv.gz"))
            return built
        }
        try FileManager.default.copyItem(atPath: built, toPath: output)
        return output
    }
}

/// A content source written inline, for tests that need exact texts.
func makeSource(edition: String = "test-1", _ documents: [(String, [(String, String)])]) -> ContentSource {
    ContentSource(
        edition: edition, language: "ro", title: "Test",
        documents: documents.map { id, passages in
            ContentSource.Document(
                id: id, title: id.capitalized,
                passages: passages.map {
                    ContentSource.Passage(id: $0.0, text: $0.1.precomposedStringWithCanonicalMapping)
                })
        })
}

/// A store in a temporary directory with `source` built and attached.
func makeStore(_ directory: TemporaryDirectory, source: ContentSource? = nil, name: String = "user.db",
               wallClock: @escaping @Sendable () -> Int64 = Timestamp.nowMilliseconds) throws -> AnnotationStore {
    let store = try AnnotationStore.open(path: directory.path(name), access: .create, wallClock: wallClock)
    if let source {
        let content = directory.path("content-\(source.edition).db")
        if !FileManager.default.fileExists(atPath: content) {
            try ContentBuilder.build(source, output: content)
        }
        try store.attachContent(path: content)
    }
    return store
}

/// Every row of every table of the main database, in order, as text: "unchanged" means this is equal.
///
/// - Parameter except: tables left out (`receipts`, which records the file an import read, byte for byte).
func canonicalDump(_ path: String, except: Set<String> = []) throws -> String {
    let db = try SQLiteDatabase(path: path, mode: .readOnly)
    var lines: [String] = []
    let tables = try db.fetchAll(
        sql: """
            SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
            AND name NOT LIKE 'notes_fts%' ORDER BY name
            """
    ) { try $0.string(0) }
    for table in tables where !except.contains(table) {
        try db.forEachRow(sql: "SELECT * FROM \"\(table)\" ORDER BY 1") { row in
            lines.append(table + ": " + (0..<row.count).map { "\(row.value(at: $0))" }.joined(separator: " | "))
        }
    }
    return lines.joined(separator: "\n")
}

/// A wall clock the test moves by hand.
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var milliseconds: Int64

    init(_ milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    func set(_ value: Int64) {
        lock.withLock { milliseconds = value }
    }

    func advance(_ delta: Int64) {
        lock.withLock { milliseconds += delta }
    }

    var now: @Sendable () -> Int64 {
        { [self] in lock.withLock { milliseconds } }
    }
}

/// The library error `body` threw, unwrapped from the `MarginaliaError` the store's API throws; nil when it threw
/// nothing or another type.
func thrownError<E: Error>(_ type: E.Type, _ body: () throws -> Void) -> E? {
    do {
        try body()
        return nil
    } catch let error as MarginaliaError {
        return error.underlyingError as? E
    } catch {
        return error as? E
    }
}

/// A value handed to a `@Sendable` closure that the test knows runs while nothing else touches it (a progress
/// handler, called on the thread doing the work the test waits for).
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A count a progress handler can move.
final class Counter {
    var count = 0
}
