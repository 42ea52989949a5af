/// A device's manifest, `devices/<id>/device.json`: the folder format the device writes, the oldest reader that
/// reads it, and the device ids this store held before (its directory may hold changes made under them). Written
/// once, by the device, before anything else in its directory.
struct DeviceManifest: Equatable {
    var device: String
    var formatVersion = SyncFormat.version
    var minimumReaderVersion = SyncFormat.minimumReaderVersion
    /// Device ids under which this store made changes before it took this one (a copy's renewal): a reader takes
    /// their changes from this directory.
    var formerDevices: [String] = []
    /// The roster the device speaks in, when it belongs to one (its manifest is then signed).
    var roster: String?

    var members: [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [
            ("format", .string(SyncFormat.name)), ("formatVersion", .int(formatVersion)),
            ("minReaderVersion", .int(minimumReaderVersion)), ("device", .string(device)),
            ("formerDevices", .array(formerDevices.map(JSONValue.string))),
        ]
        if let roster { members.append(("roster", .string(roster))) }
        return members
    }

    var json: JSONValue { .object(JSONObject(members)) }

    /// The manifest's bytes: its JSON and a final line feed, signed with `keys` when given (`SignedFile`).
    func encoded(signedWith keys: DeviceKeys? = nil) throws -> [UInt8] {
        if let keys { return try SignedFile.encode(members, kind: SyncFormat.name, keys: keys) }
        return try JSONWriter.encode(json) + [0x0A]
    }

    init(device: String, formerDevices: [String] = [], roster: String? = nil) {
        self.device = device
        self.formerDevices = formerDevices
        self.roster = roster
    }

    /// Reads a manifest (a device's, or the folder-wide one of format 1, which names no device).
    /// - Throws: `SyncFolder.ManifestPending` for one cut short; `SyncFolderError` for one that is not a manifest,
    ///   or needs a newer reader.
    init(bytes: [UInt8], file: String) throws {
        func refuse(_ kind: SyncFolderError.Kind, _ reason: String) -> SyncFolderError {
            SyncFolderError(file: file, kind: kind, reason: reason)
        }
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(bytes)
        } catch let error where error.offset >= bytes.count || bytes.last != 0x0A {
            // It ends before its JSON or its final newline: a sync tool may be writing it under its final name.
            throw SyncFolder.ManifestPending()
        } catch {
            throw refuse(.notAManifest, "is not a sync manifest (\(error))")
        }
        guard case .object(let manifest) = parsed else {
            throw refuse(.notAManifest, "is not a sync manifest (not a JSON object)")
        }
        guard case .string(let format)? = manifest["format"], format == SyncFormat.name else {
            throw refuse(.notAManifest, "is not a Marginalia sync manifest (format must be \"\(SyncFormat.name)\")")
        }
        guard case .int(let version)? = manifest["formatVersion"], version >= 1,
              case .int(let minimum)? = manifest["minReaderVersion"], minimum >= 1, minimum <= version
        else {
            throw refuse(.notAManifest, "formatVersion and minReaderVersion must be positive integers, the minimum "
                + "no greater than the version")
        }
        guard minimum <= SyncFormat.version else {
            throw refuse(.newerVersion, "the folder was written by a newer version of marginalia (sync format "
                + "\(version), readable from version \(minimum); this version reads \(SyncFormat.version)); upgrade "
                + "marginalia to sync with it; nothing was read or written")
        }
        var former: [String] = []
        if case .array(let values)? = manifest["formerDevices"] {
            for case .string(let id) in values { former.append(id) }
        }
        if case .string(let roster)? = manifest["roster"] { self.roster = roster }
        if case .string(let device)? = manifest["device"] {
            self.device = device
        } else {
            device = ""
        }
        formatVersion = version
        minimumReaderVersion = minimum
        formerDevices = former
    }
}
