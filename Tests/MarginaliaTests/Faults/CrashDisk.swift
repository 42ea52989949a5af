import CrashVFS
import Foundation
import Testing
@testable import Marginalia
import MarginaliaTestSupport

/// The simulated disk of the fault-injection tests: stores opened through the test-only `marginalia-crash`
/// SQLite VFS (Tests/CrashVFS), which can lose or tear unsynced writes and fail chosen writes, syncs and
/// truncates. Its state is global, so every test that uses it belongs to the serialized `CrashDiskTests`.
enum CrashDisk {
    static let vfs = "marginalia-crash"

    /// Registers the VFS once and forgets what earlier tests recorded.
    static func reset() throws {
        let rc = crashvfs_register()
        try #require(rc == 0, "cannot register the crash VFS: SQLite result code \(rc)")
        crashvfs_reset()
    }

    /// Opens the store at `path` through the crash VFS, with the fixture content attached.
    static func open(_ path: String, content: String?, access: AnnotationStore.Access = .readWrite) throws
        -> AnnotationStore
    {
        let store = try AnnotationStore.open(path: path, access: access, wallClock: Timestamp.nowMilliseconds,
                                             vfs: vfs)
        if let content { try store.attachContent(path: content) }
        return store
    }

    /// Writes the files as the crash left them into a fresh directory `name` of `directory`; returns the store's
    /// path there.
    static func writeCrashImage(_ directory: TemporaryDirectory, _ name: String) throws -> String {
        let out = directory.path(name)
        try? FileManager.default.removeItem(atPath: out)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let written = crashvfs_write_crash_image(out)
        try #require(written >= 1, "the crash image was not written (\(written))")
        return out + "/user.db"
    }

    /// A fresh copy of the closed store `base` as `user.db` in the directory `name`; returns its path.
    static func copy(_ base: String, _ directory: TemporaryDirectory, _ name: String) throws -> String {
        let out = directory.path(name)
        try? FileManager.default.removeItem(atPath: out)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: base, toPath: out + "/user.db")
        return out + "/user.db"
    }

    /// The seed of a randomized test: `MARGINALIA_FAULT_SEED` when set, else a fresh one; printed either way.
    static func seed(_ test: String) -> UInt64 {
        TestSeed.printed(for: test, variable: "MARGINALIA_FAULT_SEED")
    }

    /// Opens the store as the next run would (normal VFS), checks it completely and returns it.
    static func expectHealthy(_ path: String, _ comment: Comment) throws -> AnnotationStore {
        let store = try AnnotationStore.open(path: path, access: .readWrite)
        #expect(try store.verify().problems == [], comment)
        let db = try SQLiteDatabase(path: path, mode: .readOnly)
        let count = try db.int(sql: "SELECT count(*) FROM changes") ?? -1
        let last = try db.int(sql: "SELECT coalesce(max(seq), 0) FROM changes") ?? -1
        #expect(count == last, "changes.seq has a gap: \(count) rows up to seq \(last); \(comment)")
        return store
    }
}

/// Every test on the simulated disk, one at a time (the VFS's state is the process's).
@Suite(.serialized) struct CrashDiskTests {
    /// A closed store with two annotations on the fixture content, and that content's path.
    static func baseStore(_ directory: TemporaryDirectory) throws -> (store: String, content: String) {
        let path = directory.path("base.db")
        do {
            let store = try makeStore(directory, source: ArchiveFixtures.source, name: "base.db")
            _ = try store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.1"), note: "before")
            _ = try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.2"), note: "before too")
        }
        return (path, directory.path("content-\(ArchiveFixtures.source.edition).db"))
    }

    /// An archive of `count` annotations made on another store.
    static func archive(_ directory: TemporaryDirectory, count: Int) throws -> String {
        let path = directory.path("other.jsonl.gz")
        let store = try makeStore(directory, source: ArchiveFixtures.source, name: "other.db")
        try store.batch {
            for index in 0..<count {
                _ = try store.createAnnotation(
                    .highlight, at: AnchorRequest(passage: "scrisoarea-i.1", quote: "gene"), note: "imported \(index)")
            }
        }
        try store.exportArchive(toFile: path)
        return path
    }
}
