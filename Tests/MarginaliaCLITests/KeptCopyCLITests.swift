import Foundation
import Marginalia
import MarginaliaTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An import stopped midway leaves its staged copy beside the store; the next command finishes the import from it
/// only when it is still the file kept. Changed with `sqlite3`, removed, replaced by garbage, by a directory or by a
/// FIFO, it is never merged: the command says the import was abandoned, how much of it is in the store and that
/// importing the file again finishes it, and returns promptly (a FIFO is never opened for reading).
@Suite struct KeptCopyCLITests {
    /// What is done to the kept copy before the next command.
    enum Damage: String, CaseIterable, Sendable {
        case untouched, tampered, removed, garbage, directory, fifo
    }

    /// The archive of the 3,000 notes of `InterruptionTests.bigWorkspace`, exported once per test process (by a
    /// static's initialiser, run once: a workspace takes its content from `BuiltOnce`, which cannot be asked again
    /// while it makes a fixture).
    static func archive() throws -> String { try exported.get() }

    private static let exported = Result { () throws -> String in
        let directory = try BuiltOnce.shared.value(for: "kept-copy-archive") { $0 }
        let workspace = try InterruptionTests.bigWorkspace()
        let archive = directory + "/full.jsonl.gz"
        try workspace.ok(["export", archive])
        return archive
    }

    /// A store of `workspace` with a note of its own, into which an import of `archive` was stopped after its
    /// first step (the store closed under it, as a crash would leave it): its path and the kept copy's.
    static func stoppedImport(in workspace: CLIWorkspace, of archive: String) throws -> (store: String, copy: String) {
        let store = try workspace.newStore("phone.db")
        try workspace.ok(["--store", store, "note", "mai-am-un-singur-dor.1", "its own"])
        let opened = try AnnotationStore.open(path: store, access: .readWrite)
        opened.progressHandler = { report in
            if report.task == "importing changes" { try? opened.close() }
            return .proceed
        }
        #expect(throws: MarginaliaError.closed) { try opened.importArchive(path: archive) }
        let copies = try FileManager.default.contentsOfDirectory(atPath: workspace.directory.path)
            .filter { $0.hasPrefix("phone.db-import-") }
        try #require(copies.count == 1, "\(copies)")
        return (store, workspace.path(copies[0]))
    }

    /// How many changes the store at `store` holds, and the pending import's changes read (nil when none is
    /// recorded), read with the stock `sqlite3` shell.
    static func committed(_ workspace: CLIWorkspace, _ store: String) throws -> (changes: Int, read: Int?) {
        let text = try workspace.sqlite(store, """
            SELECT (SELECT count(*) FROM changes) || '|' || coalesce((SELECT json_extract(value, '$.changes_read')
                FROM adapter_state WHERE owner = 'archive' AND name LIKE 'pending_import:%'), '');
            """).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = text.split(separator: "|", omittingEmptySubsequences: false)
        return (Int(parts[0]) ?? -1, parts.count > 1 ? Int(parts[1]) : nil)
    }

    /// Does `damage` to the kept copy at `copy`.
    static func apply(_ damage: Damage, to copy: String, in workspace: CLIWorkspace) throws {
        switch damage {
        case .untouched:
            break
        case .tampered:
            // A change no step merged yet, rewritten as SQLite sees it: a valid database holding another note.
            let changed = try workspace.sqlite(copy, """
                UPDATE staged_records SET body = json_set(body, '$.note', 'TAMPERED')
                WHERE line = (SELECT max(line) FROM staged_records WHERE kind = 'change');
                SELECT changes();
                """)
            try #require(changed.status == 0 && changed.stdout == "1\n", "\(changed.stderr)")
        case .removed:
            try FileManager.default.removeItem(atPath: copy)
        case .garbage:
            // As many bytes as the copy holds (only its SHA-256 tells them apart), from a fixed seed.
            let size = try workspace.bytes(copy).count
            var random = SeededGenerator(seed: 40)
            let bytes = Data((0..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) })
            try bytes.write(to: URL(fileURLWithPath: copy))
        case .directory:
            try FileManager.default.removeItem(atPath: copy)
            try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: false)
        case .fifo:
            try FileManager.default.removeItem(atPath: copy)
            try #require(mkfifo(copy, 0o600) == 0)
        }
    }

    /// What is wrong with the copy after `damage`, as the warning says it.
    static func problem(_ damage: Damage) -> String {
        switch damage {
        case .untouched: ""
        case .tampered, .garbage: "was changed since the import began"
        case .removed: "is missing"
        case .directory: "is not a regular file but a directory"
        case .fifo: "is not a regular file but a FIFO (named pipe)"
        }
    }

    /// Runs `arguments` and waits at most `seconds` for it to end; nil (and the process killed) if it did not.
    static func run(_ workspace: CLIWorkspace, _ arguments: [String], within seconds: Double) throws -> CLIResult? {
        let running = try ChildProcess(CLIWorkspace.binary, arguments, environment: workspace.environment()).start()
        let deadline = Date().addingTimeInterval(seconds)
        while running.isRunning && Date() < deadline { usleep(10_000) }
        guard !running.isRunning else {
            running.send(SIGKILL)
            _ = running.wait()
            return nil
        }
        return running.wait()
    }

    @Test(.enabled(if: hasSQLiteShell), arguments: Damage.allCases)
    func theNextCommandFinishesTheImportOnlyFromTheCopyKept(_ damage: Damage) throws {
        let archive = try Self.archive()
        let workspace = try CLIWorkspace()
        let (store, copy) = try Self.stoppedImport(in: workspace, of: archive)
        let stopped = try Self.committed(workspace, store)
        let read = try #require(stopped.read)
        try #require(stopped.changes > 1 && stopped.changes < 3_001, "not stopped midway: \(stopped.changes)")
        try Self.apply(damage, to: copy, in: workspace)

        // `imports` reads only, but finishing an interrupted import is the one write it may make.
        let listed = try #require(try Self.run(workspace, ["--store", store, "imports"], within: 60),
                                  "'imports' did not return within 60 s: it hangs on the \(damage) copy")
        #expect(listed.status == 0, "\(listed.stderr)")
        // The import is no longer listed as under way: finished, or gone.
        #expect(!listed.stdout.contains("importing "), "\(listed.stdout)")
        let after = try Self.committed(workspace, store)
        #expect(after.read == nil)
        if damage == .untouched {
            #expect(listed.stderr == "Finished the import of \(archive) that was stopped midway\n")
            #expect(after.changes == 3_001)
            #expect(!FileManager.default.fileExists(atPath: copy))
            return
        }
        #expect(listed.stderr == "Warning: abandoned the import of \(archive) that was stopped midway: the copy kept "
            + "beside the store, \(copy), \(Self.problem(damage)), so nothing more was merged from it. \(read) of its "
            + "3000 changes are in the store (each was checked when it was merged); importing \(archive) again "
            + "finishes it (what is there already is not merged twice)\n")
        // Nothing of the copy was merged; what the committed steps merged stays, and the store is whole.
        #expect(after.changes == stopped.changes)
        try workspace.ok(["--store", store, "verify"])
        let dump = try workspace.sqlite(store, ".dump")
        #expect(dump.status == 0 && !dump.stdout.contains("TAMPERED"))
        // A copy this store kept is removed; anything else put in its place is left as it is.
        var isDirectory: ObjCBool = false
        let left = FileManager.default.fileExists(atPath: copy, isDirectory: &isDirectory)
        #expect(left == [.directory, .fifo].contains(damage), "\(damage)")
        // Said once: the next command has nothing to say.
        let next = try workspace.run(["--store", store, "imports"])
        #expect(next.status == 0 && next.stderr == "", "\(next.stderr)")
        // Importing the file again finishes it.
        try workspace.ok(["--store", store, "import", archive])
        #expect(try Self.committed(workspace, store).changes == 3_001)
        try workspace.ok(["--store", store, "verify"])
    }
}
