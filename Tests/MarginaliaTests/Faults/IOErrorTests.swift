import CrashVFS
import Foundation
import Testing
@testable import Marginalia

/// I/O errors and full disks under the store (reliability plan A.3 and A.4): the crash VFS fails the Nth
/// write, sync or truncate (N = 1, 2, … until the work completes), once or from then on, with an I/O error or
/// SQLITE_FULL. Nothing may trap; a failure must reach the caller as a thrown error; once the faults stop, the
/// store passes `verify` and equals the state before the work or the state after it, never a mix.
extension CrashDiskTests {
    /// One kind of fault: which operation fails, with what, once or from then on.
    struct Fault: CustomStringConvertible {
        let kind: crashvfs_kind
        let code: crashvfs_code
        let persistent: Bool

        var description: String {
            let name = ["write", "sync", "truncate"][Int(kind.rawValue)]
            let what = code == CRASHVFS_FULL ? "SQLITE_FULL" : "I/O error \(code.rawValue)"
            return "\(name) fails with \(what) \(persistent ? "from then on" : "once")"
        }

        /// Each operation once and from then on, with an I/O error and (writes) SQLITE_FULL; by default (unless
        /// `MARGINALIA_FAULT_RUNS` is set) a subset that keeps the suite quick: each operation and mode once.
        static var all: [Fault] {
            let every = [false, true].flatMap { persistent in
                [
                    Fault(kind: CRASHVFS_WRITE, code: CRASHVFS_IOERR_WRITE, persistent: persistent),
                    Fault(kind: CRASHVFS_WRITE, code: CRASHVFS_FULL, persistent: persistent),
                    Fault(kind: CRASHVFS_SYNC, code: CRASHVFS_IOERR_FSYNC, persistent: persistent),
                    Fault(kind: CRASHVFS_TRUNCATE, code: CRASHVFS_IOERR_TRUNCATE, persistent: persistent),
                ]
            }
            guard ProcessInfo.processInfo.environment["MARGINALIA_FAULT_RUNS"] == nil else { return every }
            return [every[0], every[5], every[2], every[7]]
        }
    }

    /// Runs `work` (opening and using a store at the path it is given, and returning it) on a fresh copy of `base`
    /// once for each fault and each N until the work completes untouched; `check` gets the path as the faults
    /// left it, whether the work claimed success, and the comment naming the run. A failure while the returned
    /// store closes (its checkpoint) is not the work's: it committed already, and the next open recovers.
    static func sweepFaults(
        _ test: String, expectsFailures: Bool = true, base: String, directory: TemporaryDirectory,
        work: (String) throws -> AnnotationStore,
        check: (String, Bool, Comment) throws -> Void
    ) throws {
        var thrown = 0
        for fault in Fault.all {
            var point = 1
            while true {
                try CrashDisk.reset()
                let path = try CrashDisk.copy(base, directory, "run")
                crashvfs_fail(Int32(fault.kind.rawValue), Int32(point), fault.persistent ? 1 : 0,
                              Int32(fault.code.rawValue))
                var succeeded = false
                do {
                    // The store closes (and checkpoints) when released, right here.
                    _ = try work(path)
                    succeeded = true
                } catch {
                    thrown += 1
                }
                let fired = crashvfs_failures() > 0
                crashvfs_reset()
                let comment: Comment = "\(fault), at operation \(point)"
                // SQLite recovers from some failures by itself (a failed write of a rollback journal, a checkpoint
                // on close after the commit); claiming success is then right only if the whole work is there,
                // which `check` asserts.
                try check(path, succeeded, comment)
                if !fired { break }
                point += 1
                try #require(point < 2000, "the work never completed; \(comment)")
            }
        }
        print("\(test): \(thrown) injected failures reached the caller as errors")
        if expectsFailures { #expect(thrown > 0, "no injected failure ever reached the caller") }
    }

    @Test func aSingleWriteUnderIOErrorsIsWholeOrAbsent() throws {
        let directory = try TemporaryDirectory()
        let (base, content) = try Self.baseStore(directory)
        let before = try AnnotationStore.open(path: base, access: .readOnly).canonicalFingerprint()
        try Self.sweepFaults(
            "I/O errors during a single write", base: base, directory: directory,
            work: { path in
                let store = try CrashDisk.open(path, content: content)
                _ = try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.3"), note: "under faults")
                return store
            },
            check: { path, succeeded, comment in
                let store = try CrashDisk.expectHealthy(path, comment)
                let count = try store.changeCount()
                if count == 2 {
                    #expect(!succeeded, "a write that reported success is missing; \(comment)")
                    #expect(try store.canonicalFingerprint() == before, comment)
                } else {
                    #expect(count == 3, comment)
                    #expect(try store.annotations().contains { $0.note == "under faults" }, comment)
                }
            })
    }

    @Test func anImportUnderIOErrorsIsAllOrNothing() throws {
        let directory = try TemporaryDirectory()
        let (base, content) = try Self.baseStore(directory)
        let archive = try Self.archive(directory, count: 10)
        let before = try AnnotationStore.open(path: base, access: .readOnly).canonicalFingerprint()
        let expected = try CrashDisk.copy(base, directory, "expected")
        _ = try AnnotationStore.open(path: expected, access: .readWrite).importArchive(path: archive)
        let after = try AnnotationStore.open(path: expected, access: .readOnly).canonicalFingerprint()
        try Self.sweepFaults(
            "I/O errors during an import", base: base, directory: directory,
            work: { path in
                let store = try CrashDisk.open(path, content: content)
                _ = try store.importArchive(path: archive)
                return store
            },
            check: { path, succeeded, comment in
                let store = try CrashDisk.expectHealthy(path, comment)
                let fingerprint = try store.canonicalFingerprint()
                let count = try store.changeCount()
                #expect(fingerprint == after || (!succeeded && fingerprint == before),
                        "\(count) changes after the import; \(comment)")
            })
    }

    @Test func creatingAStoreUnderIOErrorsLeavesNoHalfMadeStore() throws {
        let directory = try TemporaryDirectory()
        let empty = directory.path("empty.db")
        try Data().write(to: URL(fileURLWithPath: empty))
        try Self.sweepFaults(
            "I/O errors while creating a store", base: empty, directory: directory,
            work: { path in try CrashDisk.open(path, content: nil, access: .create) },
            check: { path, succeeded, comment in
                // Either the migration to the current schema committed, or the file is still empty of objects
                // and the next open makes the store from scratch.
                let store = try CrashDisk.expectHealthy(path, comment)
                #expect(try store.changeCount() == 0, comment)
                #expect(!store.deviceID.isEmpty, comment)
            })
    }

    @Test func openingTheSchemaOneFixtureUnderIOErrorsLeavesItOldOrMigrated() throws {
        let directory = try TemporaryDirectory()
        let fixture = Samples.directory.deletingLastPathComponent()
            .appendingPathComponent("Tests/Fixtures/schema-1/user-schema1.db").path
        let pristine = try CrashDisk.copy(fixture, directory, "pristine")
        let before = try canonicalDump(pristine)
        let expected = try CrashDisk.copy(fixture, directory, "expected")
        _ = try AnnotationStore.open(path: expected, access: .readWrite)
        let after = try canonicalDump(expected)
        // Schema 1 is the current schema: opening writes nothing today, and the sweep has faults to inject only
        // once a migration 2 exists.
        try Self.sweepFaults(
            "I/O errors while opening (migrating) the schema-1 fixture", expectsFailures: false, base: pristine,
            directory: directory,
            work: { path in try CrashDisk.open(path, content: nil) },
            check: { path, succeeded, comment in
                let db = try SQLiteDatabase(path: path, mode: .readOnly)
                #expect(try db.text(sql: "PRAGMA integrity_check") == "ok", comment)
                let dump = try canonicalDump(path)
                #expect(dump == after || (!succeeded && dump == before), comment)
                _ = try CrashDisk.expectHealthy(path, comment)
            })
    }
}
