import Foundation
import MarginaliaTestSupport

/// Small tmpfs file systems mounted for a test: a real disk that fills up. Mounting needs root (CAP_SYS_ADMIN);
/// the tests that mount one are enabled only where `isMountable`.
enum Tmpfs {
    /// Whether this process can mount a tmpfs: found once, by mounting a tiny one and unmounting it again.
    static let isMountable: Bool = {
        let mountPoint = FileManager.default.temporaryDirectory
            .appendingPathComponent("marginalia-tmpfs-probe-\(UUID().uuidString)").path
        guard (try? FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true))
            != nil else { return false }
        defer { try? FileManager.default.removeItem(atPath: mountPoint) }
        guard let mounted = try? mount(mountPoint, kilobytes: 64) else { return false }
        guard mounted.status == 0 else {
            print("cannot mount a tmpfs, so the tests that need one are skipped: \(mounted.stderr)")
            return false
        }
        unmount(mountPoint)
        return true
    }()

    /// Mounts a tmpfs of `kilobytes` on the directory `mountPoint`; mount(8)'s result.
    static func mount(_ mountPoint: String, kilobytes: Int) throws -> ChildProcess.Result {
        try ChildProcess("/bin/mount", ["-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", mountPoint]).run()
    }

    /// Unmounts the file system on `mountPoint`.
    static func unmount(_ mountPoint: String) {
        _ = try? ChildProcess("/bin/umount", [mountPoint]).run()
    }
}
