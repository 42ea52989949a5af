import Foundation
import Marginalia
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A full disk (reliability plan A.4), on a real tmpfs mounted for the test (it needs root; skipped where a tmpfs
/// cannot be mounted): the store and an export target on a small tmpfs, filled up by another file.
@Suite struct DiskFullTests {
    /// Writes to `path` until the file system refuses with ENOSPC.
    static func fill(_ path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let block = [UInt8](repeating: 0x55, count: 4096)
        while true {
            let written = block.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                try #require(errno == ENOSPC, "filling stopped with errno \(errno), not ENOSPC")
                return
            }
        }
    }

    /// A 1 MiB tmpfs mounted at `small` in the workspace; the caller unmounts it.
    static func mountSmallDisk(in workspace: CLIWorkspace) throws -> String {
        let mountPoint = workspace.path("small")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let mount = try Tmpfs.mount(mountPoint, kilobytes: 1024)
        try #require(mount.status == 0, "cannot mount a tmpfs: \(mount.stderr)")
        return mountPoint
    }

    static func mentionsFullDisk(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.contains("no space left on device") || lowered.contains("disk is full")
            || lowered.contains("disk full")
    }

    @Test(.enabled(if: Tmpfs.isMountable, "cannot mount a tmpfs (that needs root with CAP_SYS_ADMIN)"))
    func aRestoreOnAFullDiskSaysSoAndLeavesTheStoreAsItWas() throws {
        let workspace = try CLIWorkspace()
        let mountPoint = try Self.mountSmallDisk(in: workspace)
        defer { Tmpfs.unmount(mountPoint) }
        let store = mountPoint + "/user.db"
        try workspace.ok(["--store", store, "init"])
        for index in 0..<3 { try workspace.ok(["--store", store, "note", "mai-am-un-singur-dor.2", "note \(index)"]) }
        let backup = workspace.path("backup.jsonl.gz")
        try workspace.ok(["--store", store, "backup", backup])
        try Self.fill(mountPoint + "/filler")
        let before = try workspace.bytes(store)
        let failed = try workspace.run(["--store", store, "restore", backup])
        #expect(failed.status == 1)
        #expect(Self.mentionsFullDisk(failed.stderr), "\(failed.stderr)")
        #expect(failed.stderr.contains("was left as it was"), "\(failed.stderr)")
        #expect(!failed.stdout.contains("Restored"))
        #expect(try workspace.bytes(store) == before)
        let left = try FileManager.default.contentsOfDirectory(atPath: mountPoint).sorted()
        #expect(left.filter { $0.hasSuffix(".tmp") || $0.hasSuffix(".bak") } == [], "left: \(left)")
    }

    @Test(.enabled(if: Tmpfs.isMountable, "cannot mount a tmpfs (that needs root with CAP_SYS_ADMIN)"))
    func aFullDiskFailsExportAndWritesClearlyAndTheStoreRecoversWhenSpaceIsFreed() throws {
        let workspace = try CLIWorkspace()
        let mountPoint = try Self.mountSmallDisk(in: workspace)
        defer { Tmpfs.unmount(mountPoint) }
        let store = mountPoint + "/user.db"
        try workspace.ok(["--store", store, "init"])
        var acknowledged: [String] = []
        for index in 0..<3 {
            acknowledged.append(try workspace.ok(["--store", store, "note", "mai-am-un-singur-dor.2", "note \(index)"]))
        }
        let earlier = mountPoint + "/earlier.jsonl.gz"
        try workspace.ok(["--store", store, "export", earlier])
        let earlierBytes = try workspace.bytes(earlier)
        let filler = mountPoint + "/filler"
        try Self.fill(filler)

        let export = mountPoint + "/notes.jsonl.gz"
        let failed = try workspace.run(["--store", store, "export", export])
        #expect(failed.status != 0)
        print("full disk: export said: \(failed.stderr)")
        #expect(Self.mentionsFullDisk(failed.stderr), "\(failed.stderr)")
        #expect(!failed.stderr.contains("Exported"))
        #expect(!FileManager.default.fileExists(atPath: export), "a partial export is left")
        let left = try FileManager.default.contentsOfDirectory(atPath: mountPoint).sorted()
        #expect(left.filter { $0.hasSuffix(".tmp") } == [], "temporary files left: \(left)")
        #expect(try workspace.bytes(earlier) == earlierBytes)

        // A write on the full disk either fails saying so, or (if SQLite still had room) succeeds whole.
        let write = try workspace.run(["--store", store, "note", "mai-am-un-singur-dor.3", "on a full disk"])
        if write.status == 0 {
            acknowledged.append(write.stdout.trimmingCharacters(in: .newlines))
        } else {
            #expect(Self.mentionsFullDisk(write.stderr), "\(write.stderr)")
            print("full disk: a write said: \(write.stderr)")
        }
        let healthy = try workspace.run(["--store", store, "verify"])
        #expect(healthy.status == 0, "\(healthy.stdout)\(healthy.stderr)")

        // Space freed: the next write and export succeed without any repair.
        try FileManager.default.removeItem(atPath: filler)
        acknowledged.append(try workspace.ok(["--store", store, "note", "mai-am-un-singur-dor.4", "space again"]))
        try workspace.ok(["--store", store, "export", export])
        let verification = try ArchiveVerifier.verify(path: export)
        #expect(verification.summary.counts.annotations == acknowledged.count)
        let listed = try workspace.ok(["--store", store, "list", "--json"])
        for id in acknowledged { #expect(listed.contains(id), "\(id) is lost") }
        #expect(try workspace.run(["--store", store, "verify"]).status == 0)
    }
}
