import Foundation
import Marginalia
import MarginaliaTestSupport
import Testing

/// The folder as untrusted storage, in one scenario through the built binary, as a person with three devices and a
/// forger with write access to their folder would try it: three stores admitted by invitation, a forger who plants
/// every kind of file it can, a folder moved while encrypted, a clock set to the year 5000, and a lost phone
/// revoked. What is counted: 0 changes taken from the forger, 0 changes lost from the folder, 0 renewals of any
/// store's id, 0 plaintext segments after the move, 0 `verify` failures, and no segment written after the
/// revocation that `age -d -i` opens with what the lost phone held.
@Suite(.enabled(if: hasAge && hasFaketime && hasSQLiteShell)) struct HostileFolderScenarioTests {
    /// A store of the scenario: its path and its device id.
    struct Device {
        let name: String
        let store: String
        var id = ""
    }

    let workspace: CLIWorkspace
    let folder: String

    init() throws {
        workspace = try CLIWorkspace()
        folder = workspace.path("Sync")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    /// `marginalia --store STORE ARGS`, which must succeed.
    @discardableResult
    func ok(_ device: Device, _ arguments: [String]) throws -> String {
        try workspace.ok(["--store", device.store] + arguments)
    }

    /// The device id `device` prints.
    func id(of device: Device) throws -> String {
        let line = try #require(try ok(device, ["device"]).split(separator: "\n").first { $0.hasPrefix("device ") })
        return String(line.dropFirst("device ".count))
    }

    /// One `sync FOLDER --json` round of `device`, checked for what no round may do here: take a new id, write
    /// changes again, or remove a file.
    @discardableResult
    func round(_ device: Device, _ folder: String, _ extra: [String] = []) throws -> [String: Any] {
        let report = try #require(try JSONSerialization.jsonObject(
            with: Data(ok(device, ["sync", folder, "--json"] + extra).utf8)) as? [String: Any])
        #expect(report["renewedFromDevice"] is NSNull, "\(device.name) renewed its id: \(report)")
        #expect((report["republished"] as? [Any])?.isEmpty == true, "\(device.name): \(report)")
        #expect((report["removed"] as? [Any])?.isEmpty == true, "\(device.name): \(report)")
        return report
    }

    /// The notes `device` lists.
    func notes(_ device: Device) throws -> [String] {
        let listed = try #require(try JSONSerialization.jsonObject(
            with: Data(ok(device, ["list", "--json"]).utf8)) as? [[String: Any]])
        return listed.compactMap { $0["note"] as? String }.sorted()
    }

    /// Every file under `directory`, by path relative to it.
    func files(in directory: String) -> Set<String> {
        Set((FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? []).filter { relative in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: "\(directory)/\(relative)", isDirectory: &isDirectory)
                && !isDirectory.boolValue
        })
    }

    /// Whether `name` (a path's last component) is a segment's: `000000000001-000000000004-1a2b3c4d.jsonl.gz`.
    func isSegmentName(_ name: String) -> Bool {
        name.range(of: #"^[0-9]{12}-[0-9]{12}-[0-9a-f]{8}\.jsonl\.gz$"#, options: .regularExpression) != nil
    }

    /// Runs `program ARGS` with `input` on its standard input.
    func tool(_ program: String, _ arguments: [String], input: Data? = nil) throws -> CLIResult {
        try ChildProcess(program, arguments, input: input).run()
    }

    @Test func aFolderOfThreeStoresAndAForgerLosesNothingAndTakesNothingForged() throws {
        var laptop = Device(name: "laptop", store: workspace.store)
        var phone = Device(name: "phone", store: try workspace.newStore("phone.db"))
        var tablet = Device(name: "tablet", store: try workspace.newStore("tablet.db"))
        let passage = "mai-am-un-singur-dor.1"
        var expected: [String] = []
        for device in [laptop, phone, tablet] {
            try ok(device, ["device", "name", device.name])
            for index in 1...2 {
                try ok(device, ["note", passage, "din \(device.name) \(index)"])
                expected.append("din \(device.name) \(index)")
            }
        }
        try workspace.admit(phone.store, by: laptop.store, folder: folder)
        try workspace.admit(tablet.store, by: laptop.store, folder: folder)
        for _ in 0..<2 { for device in [laptop, phone, tablet] { try round(device, folder) } }
        laptop.id = try id(of: laptop)
        phone.id = try id(of: phone)
        tablet.id = try id(of: tablet)
        let devices = [laptop, phone, tablet]
        for device in devices { #expect(try notes(device) == expected.sorted()) }

        // The forger: a store of a roster of its own, founded in a folder elsewhere, with write access to this one.
        let forger = Device(name: "forger", store: try workspace.newStore("forger.db"))
        let elsewhere = workspace.path("Elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try ok(forger, ["note", passage, "falsificat"])
        try round(forger, elsewhere)
        let forgerID = try id(of: forger)
        let forgerDirectory = "\(folder)/devices/\(forgerID)"
        try FileManager.default.copyItem(atPath: "\(elsewhere)/devices/\(forgerID)", toPath: forgerDirectory)
        // Its manifest claims the laptop's id as a former id of its own.
        let manifest = "\(forgerDirectory)/device.json"
        try Data(String(contentsOfFile: manifest, encoding: .utf8).replacingOccurrences(
            of: "\"formerDevices\":[]", with: "\"formerDevices\":[\"\(laptop.id)\"]").utf8)
            .write(to: URL(fileURLWithPath: manifest))
        // Its segment, planted in the laptop's and the phone's own directories.
        let forged = try #require(files(in: forgerDirectory).first { isSegmentName($0) })
        for victim in [laptop, phone] {
            try FileManager.default.copyItem(atPath: "\(forgerDirectory)/\(forged)",
                                             toPath: "\(folder)/devices/\(victim.id)/\(forged)")
        }
        // The phone's own segment with a note altered, under a new name in the phone's directory.
        let phoneDirectory = "\(folder)/devices/\(phone.id)"
        let plain = try #require(try files(in: phoneDirectory).filter(isSegmentName).map {
            try tool("/bin/gzip", ["-dc", "\(phoneDirectory)/\($0)"]).stdout
        }.first { $0.contains("din phone 1") })
        let altered = try tool("/bin/gzip", ["-c"], input: Data(plain.replacingOccurrences(
            of: "din phone 1", with: "falsificat în telefon").utf8)).output
        try altered.write(to: URL(fileURLWithPath: "\(phoneDirectory)/"
            + "000000000900-000000000900-0000beef.jsonl.gz"))
        // Status files calling the laptop's segments damaged: unsigned, in the tablet's directory and a stranger's.
        let laptopDirectory = "\(folder)/devices/\(laptop.id)"
        let laptopSegments = files(in: laptopDirectory).filter { isSegmentName($0) }.sorted()
        let entries = try laptopSegments.map { name in
            let size = try FileManager.default.attributesOfItem(atPath: "\(laptopDirectory)/\(name)")[.size] as? Int
            return #"{"path":"devices/\#(laptop.id)/\#(name)","size":\#(size ?? 0),"reason":"forged"}"#
        }.joined(separator: ",")
        let stranger = "\(folder)/devices/0123456789abcdef0123456789abcdef"
        try FileManager.default.createDirectory(atPath: stranger, withIntermediateDirectories: true)
        for (device, directory) in [(tablet.id, "\(folder)/devices/\(tablet.id)"), ("stranger", stranger)] {
            try Data(#"{"format":"marginalia-sync-unreadable","device":"\#(device)","files":[\#(entries)]}"#.utf8
                + [0x0A]).write(to: URL(fileURLWithPath: "\(directory)/unreadable.json"))
        }
        // An empty directory named after a device, and a manifest asking every reader to be newer.
        try FileManager.default.createDirectory(atPath: "\(folder)/devices/fedcba9876543210fedcba9876543210",
                                                withIntermediateDirectories: true)
        let future = "\(folder)/devices/future"
        try FileManager.default.createDirectory(atPath: future, withIntermediateDirectories: true)
        try Data(#"{"format":"marginalia-sync","formatVersion":99,"minReaderVersion":99,"device":"future"}"#.utf8
            + [0x0A]).write(to: URL(fileURLWithPath: "\(future)/device.json"))
        let beforeRounds = files(in: folder)
        for _ in 0..<3 {
            for device in devices {
                let report = try round(device, folder)
                #expect(report["changesApplied"] as? Int == 0, "\(device.name): \(report)")
                #expect(report["written"] is NSNull, "\(device.name): \(report)")
            }
        }
        let refused = try #require(try JSONSerialization.jsonObject(with: Data(ok(laptop, ["sync", folder,
            "--json"]).utf8)) as? [String: Any])
        let refusedPaths = ((refused["devices"] as? [[String: Any]]) ?? [])
            .flatMap { ($0["refused"] as? [[String: Any]]) ?? [] }.compactMap { $0["path"] as? String }
        #expect(refusedPaths.contains("devices/\(forgerID)") && refusedPaths.contains("devices/future"))
        // Every device still holds every note and nothing forged; no file of the folder was rewritten or removed.
        #expect(files(in: folder) == beforeRounds)
        for device in devices {
            #expect(try notes(device) == expected.sorted())
            #expect(try id(of: device) == device.id)
        }

        // Encryption by epochs, on each store once; then the folder is moved.
        for device in devices { try round(device, folder, ["--encrypt"]) }
        let moved = workspace.path("Moved")
        try FileManager.default.moveItem(atPath: folder, toPath: moved)
        let beforeMove = files(in: moved)
        for device in devices {
            try ok(device, ["note", passage, "după mutare pe \(device.name)"])
            expected.append("după mutare pe \(device.name)")
        }
        for _ in 0..<2 { for device in devices { try round(device, moved) } }
        let written = files(in: moved).subtracting(beforeMove).filter {
            isSegmentName(($0 as NSString).lastPathComponent)
        }
        #expect(written.count >= 3)
        for path in written {
            let head = try workspace.bytes("\(moved)/\(path)").prefix(22)
            #expect(String(decoding: head, as: UTF8.self) == "age-encryption.org/v1\n", "plaintext: \(path)")
        }

        // A clock in the year 5000: the note is refused, and nothing is stored altered.
        let year5000: Int64 = 95_617_584_000_000
        let late = try workspace.run(at: year5000, ["--store", phone.store, "note", passage, "din anul 5000"])
        #expect(late.status != 0 && late.stderr.contains("4892"), "\(late.stdout)\(late.stderr)")
        for device in devices { try round(device, moved) }
        for device in devices {
            #expect(try notes(device) == expected.sorted())
            #expect(try ok(device, ["verify"]).contains("ok"))
        }

        // The phone is lost: what it held (its own identity and every epoch key it could open) opens nothing
        // written after the revocation and one round on each remaining device.
        // A thief reads the phone's identity out of its store with the stock sqlite3 shell.
        let secret = try workspace.sqlite(phone.store,
                                          "SELECT hex(age_secret) FROM device_keys WHERE device = '\(phone.id)'")
        let hex = Array(secret.stdout.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        #expect(hex.count == 64)
        let seed = stride(from: 0, to: hex.count - 1, by: 2).compactMap {
            UInt8(String(decoding: hex[$0...$0 + 1], as: UTF8.self), radix: 16)
        }
        let phoneIdentity = try AgeIdentity(secretKey: seed)
        var held = [phoneIdentity]
        for path in files(in: moved) where path.contains("/keys-") {
            let bytes = Array(try workspace.bytes("\(moved)/\(path)"))
            if let plaintext = try? AgeDecryptingSource.decrypt(bytes, with: .identities([phoneIdentity])) {
                held += try AgeIdentity.parseFile(String(decoding: plaintext, as: UTF8.self), file: path)
            }
        }
        #expect(held.count >= 4)
        let lostKey = workspace.path("lost-key.txt")
        try Data((held.map(\.encoded).joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: lostKey))
        try ok(laptop, ["device", "revoke", "phone"])
        let beforeRevocation = files(in: moved)
        try round(laptop, moved)
        try round(tablet, moved)
        for device in [laptop, tablet] {
            try ok(device, ["note", passage, "după revocare pe \(device.name)"])
            expected.append("după revocare pe \(device.name)")
        }
        for _ in 0..<2 { for device in [laptop, tablet] { try round(device, moved) } }
        let afterRevocation = files(in: moved).subtracting(beforeRevocation)
            .filter { isSegmentName(($0 as NSString).lastPathComponent) || $0.contains("/keys-") }
        #expect(afterRevocation.count >= 4)
        for path in afterRevocation {
            let opened = try tool("/usr/bin/age", ["-d", "-i", lostKey, "\(moved)/\(path)"])
            #expect(opened.status != 0, "the lost phone's keys open \(path)")
        }
        // What the lost phone writes now is refused; the others still agree and verify.
        try ok(phone, ["note", passage, "de pe telefonul pierdut"])
        _ = try ok(phone, ["sync", moved])
        for device in [laptop, tablet] {
            try round(device, moved)
            #expect(try notes(device) == expected.sorted())
            #expect(try ok(device, ["verify"]).contains("ok"))
        }
    }
}
