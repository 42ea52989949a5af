import Foundation
import Marginalia
import MarginaliaTestSupport
import Testing

/// `device invite`, `device join`, `device roster`, `device revoke` and `key recovery` through the built binary.
@Suite struct RosterCLITests {
    @Test func aDeviceIsInvitedAdmittedAndRevokedWithOneCommandOnEachSide() throws {
        let workspace = try CLIWorkspace()
        let folder = workspace.path("Sync")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let phone = try workspace.newStore("phone.db")
        let invitation = workspace.path("invitation.json")
        try workspace.ok(["note", "mai-am-un-singur-dor.1", "din laptop"])
        let invited = try workspace.ok(["device", "invite", invitation])
        #expect(invited.contains("Wrote \(invitation)") && invited.contains("fingerprint "))
        let mode = try FileManager.default.attributesOfItem(atPath: invitation)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // An invitation is never written over.
        let again = try workspace.run(["device", "invite", invitation])
        #expect(again.status == 1 && again.stderr.contains("will not write over"))
        let joined = try workspace.ok(["--store", phone, "device", "join", invitation, "--name", "phone"])
        let laptopPrint = try #require(invited.split(separator: "\n").first { $0.contains("fingerprint") })
            .components(separatedBy: "fingerprint ").last?.trimmingCharacters(in: .punctuationCharacters)
        let fingerprint = try #require(laptopPrint)
        #expect(joined.contains("Inviting device") && joined.contains(fingerprint))
        #expect(try workspace.ok(["--store", phone, "sync", folder]).contains("waiting to be admitted"))
        let admitted = try workspace.ok(["sync", folder])
        #expect(admitted.contains("Admitted phone"))
        try workspace.ok(["--store", phone, "sync", folder])
        #expect(try workspace.ok(["--store", phone, "list"]).contains("din laptop"))
        let roster = try workspace.ok(["device", "roster"])
        let admittedLines = roster.split(separator: "\n").filter { $0.hasSuffix("admitted") }
        #expect(roster.contains("phone") && admittedLines.count == 1)
        // The laptop revokes the phone: nothing the phone writes afterwards is taken.
        let revoked = try workspace.ok(["device", "revoke", "phone"])
        #expect(revoked.contains("Revoked") && revoked.contains("Epoch 1"))
        try workspace.ok(["sync", folder])
        try workspace.ok(["--store", phone, "note", "mai-am-un-singur-dor.2", "după revocare"])
        let silenced = try workspace.ok(["--store", phone, "sync", folder])
        #expect(silenced.contains("revoked") && !silenced.contains("Wrote"))
        let report = try workspace.ok(["sync", folder])
        #expect(report.contains("refused: devices/") && report.contains("revoked"))
        #expect(try !workspace.ok(["list"]).contains("după revocare"))
        #expect(try workspace.run(["device", "revoke", "nobody"]).status == 1)
    }

    @Test func aRecoveryKeyIsPrintedOnceAndRecordedInTheRoster() throws {
        let workspace = try CLIWorkspace()
        let printed = try workspace.ok(["key", "recovery"])
        let lines = printed.split(separator: "\n")
        #expect(lines.last?.hasPrefix("AGE-SECRET-KEY-1") == true)
        let identity = try AgeIdentity(parsing: String(try #require(lines.last)))
        let store = try AnnotationStore.open(path: workspace.store, access: .readOnly)
        #expect(try store.roster()?.recoveryRecipients == [identity.recipient])
    }
}
