import Foundation
import MarginaliaTestSupport
import Testing

/// Identity files are read as age reads them, bounded: a FIFO or a directory is refused before anything waits on
/// it, a file too large to be an identity is refused unread, and a secret key others may read is warned about.
@Suite struct IdentityFileCLITests {
    @Test(.enabled(if: hasAge))
    func aFIFOAHugeFileAndALooseModeGetClearWords() throws {
        let workspace = try CLIWorkspace()
        let (key, recipient) = try EncryptionCLITests.storeAndKey(workspace)
        let file = workspace.path("notes.age")
        let piped = try EncryptionCLITests.shell(workspace, "marginalia export - | age -r \(recipient) > '\(file)'")
        #expect(piped.status == 0, "\(piped.stderr)")
        // age-keygen writes the key 0600: no warning.
        let quiet = try workspace.run(["verify", file, "--identity", key])
        #expect(quiet.status == 0 && !quiet.stderr.contains("Warning"), "\(quiet.stderr)")
        #expect(chmod(key, 0o644) == 0)
        let loose = try workspace.run(["verify", file, "--identity", key])
        #expect(loose.status == 0, "\(loose.stderr)")
        #expect(loose.stderr.contains("Warning: the identity file \(key) can be read by others (mode 644)")
            && loose.stderr.contains("chmod 600"), "\(loose.stderr)")
        let fifo = workspace.path("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let started = Date()
        let refusedFIFO = try workspace.run(["verify", file, "--identity", fifo])
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(refusedFIFO.status == 65 && refusedFIFO.stderr.contains("is not a regular file"),
                "\(refusedFIFO.stderr)")
        let huge = workspace.path("huge.txt")
        try Data(repeating: 0x41, count: 1 << 20).write(to: URL(fileURLWithPath: huge))
        let refusedHuge = try workspace.run(["verify", file, "--identity", huge])
        #expect(refusedHuge.status == 65 && refusedHuge.stderr.contains("1048576 bytes: not an age identity file"),
                "\(refusedHuge.stderr)")
    }
}
