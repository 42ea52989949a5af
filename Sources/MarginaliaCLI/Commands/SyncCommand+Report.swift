import Foundation
import Marginalia

// MARK: - The report, as text and as JSON

extension SyncCommand {
    /// The report in lines, each device by its name where it has one (`names`, by id); `join` is the command that
    /// joins this store to a roster, as the person would type it here.
    static func text(_ report: SyncReport, names: [String: String] = [:],
                     join: String = "marginalia device join FILE") -> [String] {
        if let needed = report.joinNeeded {
            return ["This folder belongs to roster \(needed.roster), founded by device \(needed.founder) (fingerprint "
                        + "\(needed.founderFingerprint)), and this store is in no roster: nothing was read or written.",
                    "To take part: run 'marginalia device invite FILE' on a device of that roster, carry FILE here and "
                        + "run '\(join)', then sync here, then on that device."]
        }
        var lines: [String] = []
        if report.createdManifest {
            lines.append("Joined the folder: created \(report.folder)/devices/\(report.deviceID)/.")
        }
        if let old = report.renewedFromDeviceID {
            lines.append("This store now writes as device \(report.deviceID) (was \(old)): "
                + (report.renewalReason ?? "") + ".")
        }
        for admission in report.admitted {
            let who = admission.name.map { "\($0) (\(admission.device))" } ?? admission.device
            lines.append("Admitted \(who) to the roster by invitation: fingerprint \(admission.fingerprint).")
        }
        if let refusal = report.notSpeaking {
            lines.append("This device may not speak in its roster: \(refusal).")
        }
        if !report.encryptedTo.isEmpty {
            lines.append("Segments are encrypted to " + report.encryptedTo.joined(separator: ", ") + ".")
        }
        for device in report.devices where device.segmentsApplied > 0 {
            let who = names[device.device].map { "\($0) (\(device.device))" } ?? device.device
            lines.append("\(who): \(Output.count(device.segmentsApplied, "segment")), "
                + "\(Output.count(device.changesApplied, "new change")), \(device.duplicates) already here, "
                + "\(Output.count(device.conflictsResolved, "conflict")) resolved")
        }
        for device in report.devices {
            lines += ConflictOutput.lines(device.conflicts, total: device.conflictsResolved, names: names)
        }
        for issue in report.pending { lines.append("pending: \(issue)") }
        for issue in report.damaged { lines.append("damaged: \(issue)") }
        for issue in report.devices.flatMap(\.refused) { lines.append("refused: \(issue)") }
        for issue in report.heldForDeletion { lines.append("held: \(issue)") }
        for issue in report.leftovers { lines.append("leftover: \(issue)") }
        if let written = report.written {
            lines.append("Wrote \(written.path): \(Output.count(written.changes, "change")), "
                + "\(Output.count(written.bytes, "byte")).")
        }
        for path in report.republished {
            lines.append("Wrote again the changes of \(path), which another device found damaged, "
                + (report.removed.contains(path) ? "and removed it." : "and kept it: it reads whole here."))
        }
        if let compacted = report.compactedInto {
            let folded = report.removed.count - report.republished.filter(report.removed.contains).count
            lines.append("Compacted \(Output.count(folded, "segment")) into \(compacted.path).")
        }
        if report.releasedFromQuarantine > 0 {
            lines.append("Merged \(Output.count(report.releasedFromQuarantine, "change")) held in quarantine.")
        }
        if report.written == nil && report.changesApplied == 0 && report.releasedFromQuarantine == 0 {
            lines.append("Nothing new.")
        }
        if !report.pending.isEmpty {
            lines.append("\(Output.count(report.pending.count, "file")) still being copied: run sync again once "
                + "the sync tool has caught up.")
        }
        if !report.damaged.isEmpty {
            lines.append("\(Output.count(report.damaged.count, "file")) damaged: nothing of them was merged; their "
                + "writers will write their changes again at their next sync.")
        }
        return lines
    }

    static func json(_ report: SyncReport) -> JSONValue {
        func issue(_ item: SyncFileIssue) -> JSONValue {
            var members: [(String, JSONValue)] = [("path", .string(item.path))]
            if let line = item.line { members.append(("line", .int(Int64(line)))) }
            members.append(("reason", .string(item.reason)))
            return .object(JSONObject(members))
        }
        func segment(_ item: SyncSegment?) -> JSONValue {
            guard let item else { return .null }
            return .object(JSONObject([
                ("path", .string(item.path)), ("changes", .int(Int64(item.changes))),
                ("bytes", .int(Int64(item.bytes))), ("firstSeq", .int(item.firstSequence)),
                ("lastSeq", .int(item.lastSequence)),
            ]))
        }
        func device(_ device: SyncDeviceReport) -> JSONValue {
            .object(JSONObject([
                ("device", .string(device.device)), ("segmentsApplied", .int(Int64(device.segmentsApplied))),
                ("changesApplied", .int(Int64(device.changesApplied))),
                ("duplicates", .int(Int64(device.duplicates))),
                ("conflictsResolved", .int(Int64(device.conflictsResolved))),
                ("conflicts", ConflictOutput.json(device.conflicts)),
                ("quarantined", .int(Int64(device.quarantined))),
                ("pending", .array(device.pending.map(issue))), ("damaged", .array(device.damaged.map(issue))),
                ("leftovers", .array(device.leftovers.map(issue))), ("refused", .array(device.refused.map(issue))),
                ("gone", .array(device.gone.map(JSONValue.string))),
            ]))
        }
        let files: [(String, JSONValue)] = [
            ("pending", .array(report.pending.map(issue))), ("damaged", .array(report.damaged.map(issue))),
            ("leftovers", .array(report.leftovers.map(issue))),
            ("heldForDeletion", .array(report.heldForDeletion.map(issue))),
        ]
        return .object(JSONObject([
            ("folder", .string(report.folder)), ("device", .string(report.deviceID)),
            ("createdManifest", .bool(report.createdManifest)),
            ("renewedFromDevice", report.renewedFromDeviceID.map(JSONValue.string) ?? .null),
            ("renewalReason", report.renewalReason.map(JSONValue.string) ?? .null),
            ("written", segment(report.written)), ("compactedInto", segment(report.compactedInto)),
            ("removed", .array(report.removed.map(JSONValue.string))),
            ("changesApplied", .int(Int64(report.changesApplied))),
            ("releasedFromQuarantine", .int(Int64(report.releasedFromQuarantine))),
            ("held", .int(Int64(report.held))),
            ("roster", report.roster.map(JSONValue.string) ?? .null),
            ("admitted", .array(report.admitted.map { admission in
                .object(JSONObject([("device", .string(admission.device)),
                                    ("name", admission.name.map(JSONValue.string) ?? .null),
                                    ("fingerprint", .string(admission.fingerprint))]))
            })),
            ("notSpeaking", report.notSpeaking.map(JSONValue.string) ?? .null),
            ("republished", .array(report.republished.map(JSONValue.string))),
            ("joinNeeded", report.joinNeeded.map { needed in
                .object(JSONObject([("roster", .string(needed.roster)), ("founder", .string(needed.founder)),
                                    ("founderFingerprint", .string(needed.founderFingerprint))]))
            } ?? .null),
            ("devices", .array(report.devices.map(device))),
        ] + files))
    }
}
