import Foundation
import Testing
@testable import Marginalia

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// No command writes over what it was not asked to replace, and what it writes is private.
@Suite struct OutputTargetTests {
    /// A store with one annotation in a fresh directory.
    final class Fixture {
        let directory: TemporaryDirectory
        let store: AnnotationStore

        init() throws {
            umask(0o022)
            directory = try TemporaryDirectory()
            store = try makeStore(directory, source: makeSource([("d", [("d.1", "Un text de probă.")])]))
            try store.createAnnotation(.note, at: AnchorRequest(passage: "d.1"), note: "private")
        }

        func path(_ name: String) -> String { directory.path(name) }
        func real(_ name: String) -> String { (try? OutputTarget.realPath(of: path(name))) ?? path(name) }
    }

    private static func mode(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    private static func refusal(_ body: () throws -> Void) -> OutputRefusal? {
        do {
            try body()
            return nil
        } catch let refusal as OutputRefusal {
            return refusal
        } catch let error as MarginaliaError where error.underlyingError is OutputRefusal {
            return error.underlyingError as? OutputRefusal
        } catch {
            Issue.record("expected a refusal, got \(error)")
            return nil
        }
    }

    @Test func storesContentDatabasesAndTheStoresOwnFilesAreRefusedEvenWithForce() throws {
        let fixture = try Fixture()
        // Closed, so that its application id is checkpointed from its log into its header.
        _ = try AnnotationStore.open(path: fixture.path("other.db"), access: .create)
        let content = try #require(fixture.store.content?.path)
        try FileManager.default.createSymbolicLink(atPath: fixture.path("link.db"), withDestinationPath: "user.db")
        let linked = try AnnotationStore.open(path: fixture.path("link.db"), access: .readWrite)
        try FileManager.default.copyItem(atPath: content, toPath: fixture.path("copy.db"))
        let bak = fixture.path("user.db.20261129T121441Z.bak")
        try FileManager.default.copyItem(atPath: fixture.store.path, toPath: bak)
        #expect(FileManager.default.createFile(atPath: fixture.path("user.db.20261129T121441Z-2.bak-wal"),
                                               contents: Data()))
        let cases: [(String, String)] = [
            (fixture.store.path, "the store itself"),
            (fixture.path("other.db"), "a Marginalia store"),
            (content, "the attached content database"),
            (fixture.path("copy.db"), "a Marginalia content database"),
            (fixture.path("user.db-wal"), "the store's write-ahead log"),
            (fixture.path("user.db-shm"), "the store's shared-memory file"),
            (bak, "a previous store kept by restore"),
            (fixture.path("user.db.20261129T121441Z-2.bak-wal"), "a previous store kept by restore"),
        ]
        for (path, what) in cases {
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            for force in [false, true] {
                let refused = Self.refusal { try fixture.store.exportArchive(toFile: path, force: force) }
                #expect(refused?.what == what, "\(path) force \(force)")
                #expect(refused?.path == path)
            }
            #expect(Self.refusal { try fixture.store.backup(to: path) }?.what == what, "\(path)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "\(path)")
        }
        // Through a symbolic link to the store, its write-ahead log is refused by its real name.
        let wal = Self.refusal { try linked.exportArchive(toFile: fixture.path("user.db-wal"), force: true) }
        #expect(wal?.what == "the store's write-ahead log")
        // A content database is not rebuilt over a store, and over content only with force.
        let source = makeSource([("d", [("d.1", "Alt text.")])])
        #expect(Self.refusal { try ContentBuilder.build(source, output: fixture.store.path, force: true) }?.what
                    == "a Marginalia store")
        #expect(Self.refusal { try ContentBuilder.build(source, output: content) }?.remedy
                    == .forceRebuild)
        #expect(try ContentBuilder.build(source, output: content, force: true).passageCount == 1)
        #expect(Self.refusal {
            try ContentBuilder.build(source, output: fixture.path("fresh-wal"), protecting: fixture.store.path)
        } == nil)
        #expect(Self.refusal {
            try ContentBuilder.build(source, output: fixture.path("user.db-journal"), force: true,
                                     protecting: fixture.store.path)
        }?.what == "the store's rollback journal")
        #expect(try fixture.store.changeCount() == 1)
    }

    @Test func directoriesFIFOsDevicesAndSocketsAreNeverReplacedByAFile() throws {
        let fixture = try Fixture()
        let fifo = fixture.path("pipe")
        #expect(mkfifo(fifo, 0o600) == 0)
        try FileManager.default.createDirectory(atPath: fixture.path("folder"), withIntermediateDirectories: false)
        let socketPath = fixture.path("sock")
        let socketDescriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socketDescriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in socketPath.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(bound == 0)
        let cases = [(fixture.path("folder"), "a directory"), (fifo, "a FIFO (named pipe)"), ("/dev/null", "a device"),
                     ("/dev/full", "a device"), (socketPath, "a socket"), (fixture.path("folder/"), "a directory")]
        for (path, what) in cases {
            for force in [false, true] {
                #expect(Self.refusal { try fixture.store.exportArchive(toFile: path, force: force) }?.what == what,
                        "\(path)")
            }
            #expect(Self.refusal { try fixture.store.backup(to: path) }?.what == what, "\(path)")
            #expect(Self.refusal { try ContentBuilder.build(makeSource([]), output: path, force: true) }?.what
                        == what, "\(path)")
        }
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)
        #expect(lstat("/dev/full", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.path("folder")).isEmpty)
    }

    @Test func aPlainFileOnlyWithForceAndAnEarlierBackupByABackup() throws {
        let fixture = try Fixture()
        let notes = fixture.path("notes.txt")
        try Data("my own notes".utf8).write(to: URL(fileURLWithPath: notes))
        let refused = Self.refusal { try fixture.store.exportArchive(toFile: notes) }
        #expect(refused == OutputRefusal(path: notes, what: "an existing file", remedy: .force))
        #expect(Self.refusal { try fixture.store.backup(to: notes) }?.what == "an existing file")
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "my own notes")
        try fixture.store.exportArchive(toFile: notes, force: true)
        #expect(try ArchiveVerifier.verify(path: notes).summary.counts.annotations == 1)
        // An earlier archive: a backup replaces it once verified; an export only with force.
        let backup = fixture.path("backup.jsonl.gz")
        try fixture.store.backup(to: backup)
        try fixture.store.createAnnotation(.bookmark, at: AnchorRequest(passage: "d.1"))
        #expect(try fixture.store.backup(to: backup).counts.annotations == 2)
        #expect(Self.refusal { try fixture.store.exportArchive(toFile: backup) }?.what == "an existing file")
        #expect(try ArchiveVerifier.verify(path: backup).summary.counts.annotations == 2)
        // Nothing is left beside the targets.
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.path("")).filter { $0.hasPrefix(".") }
                    .isEmpty)
    }

    @Test func aSymbolicLinkIsWrittenThroughAndStaysALink() throws {
        let fixture = try Fixture()
        try FileManager.default.createDirectory(atPath: fixture.path("real"), withIntermediateDirectories: false)
        let real = fixture.path("real/backup.jsonl.gz")
        try fixture.store.backup(to: real)
        #expect(chmod(real, 0o640) == 0)
        let link = fixture.path("link.gz")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real/backup.jsonl.gz")
        try fixture.store.createAnnotation(.bookmark, at: AnchorRequest(passage: "d.1"))
        try fixture.store.backup(to: link)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "real/backup.jsonl.gz")
        #expect(try ArchiveVerifier.verify(path: real).summary.counts.annotations == 2)
        // The replaced file's tighter mode is kept (0640 becomes 0600, never wider); the temporary file was made
        // in the real file's directory and is gone.
        #expect(Self.mode(real) & 0o077 & ~0o040 == 0)
        #expect(Self.mode(real) & 0o700 == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.path("real")) == ["backup.jsonl.gz"])
        // A dangling link is written through too, creating its target.
        let dangling = fixture.path("dangling.gz")
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "real/new.jsonl.gz")
        try fixture.store.exportArchive(toFile: dangling)
        #expect(try ArchiveVerifier.verify(path: fixture.path("real/new.jsonl.gz")).summary.counts.annotations == 2)
    }

    @Test func filesAreOwnerOnlyUnderUmask022() throws {
        let fixture = try Fixture()
        let directory = fixture.path("deep/data/marginalia")
        let store = try AnnotationStore.open(path: directory + "/user.db", access: .create)
        try store.attachContent(path: try #require(fixture.store.content?.path))
        try store.setPosition(document: "d", at: TextPosition(passage: "d.1", offset: 0))
        for path in [directory + "/user.db", directory + "/user.db-wal", directory + "/user.db-shm"] {
            #expect(FileManager.default.fileExists(atPath: path), "\(path)")
            #expect(Self.mode(path) == 0o600, "\(path)")
        }
        for path in [fixture.path("deep"), fixture.path("deep/data"), directory] {
            #expect(Self.mode(path) == 0o700, "\(path)")
        }
        let export = fixture.path("notes.jsonl.gz")
        try fixture.store.exportArchive(toFile: export)
        try fixture.store.backup(to: fixture.path("backup.jsonl.gz"))
        #expect(Self.mode(export) == 0o600)
        #expect(Self.mode(fixture.path("backup.jsonl.gz")) == 0o600)
        // A replaced file keeps a tighter mode: 0600 stays 0600, 0400 stays 0400, 0644 becomes 0600.
        for (before, after) in [(0o600, 0o600), (0o400, 0o400), (0o644, 0o600), (0o640, 0o600)] as [(mode_t, mode_t)] {
            #expect(chmod(export, before) == 0)
            try fixture.store.exportArchive(toFile: export, force: true)
            #expect(Self.mode(export) == after, "from \(String(before, radix: 8))")
        }
    }
}
