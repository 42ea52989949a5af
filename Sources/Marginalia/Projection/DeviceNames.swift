/// The devices' names as the log sets them (schema 8): each device's name is a register, set by its latest
/// naming change (by clock, then device, then change id), kept in `devices.name` with that change's clock.
struct DeviceNames {
    /// The connection the names are read and written on.
    let db: any Database

    /// Applies a naming change to `devices`: the device's row takes the name unless a later naming change set it.
    /// Returns whether the name changed; the row is made when the device has none yet (`added`).
    func apply(_ change: Change) throws -> (updated: Bool, added: Bool) {
        guard let name = change.fields.name else { return (false, false) }
        try db.execute(sql: "INSERT OR IGNORE INTO devices (id) VALUES (?)", arguments: [change.entityID])
        let added = try db.int(sql: "SELECT changes()") == 1
        let stored = try db.text(sql: "SELECT name_clock FROM devices WHERE id = ?", arguments: [change.entityID])
        if let stored, let clock = ClockStamp(text: stored), !(clock < change.stamp) { return (false, added) }
        try db.execute(sql: "UPDATE devices SET name = ?, name_clock = ? WHERE id = ?",
                       arguments: [name, change.stamp.text, change.entityID])
        return (true, added)
    }

    /// What each device is called where a display shows it, by device id: its name, else the name `derived`
    /// gives its id (an interop import's device); a device with neither is left out. Reads `devices` alone.
    func shown(deriving derived: (String) -> String?) throws -> [String: String] {
        var names: [String: String] = [:]
        try db.forEachRow(sql: "SELECT id, name FROM devices") { row in
            let id = try row.string(0)
            names[id] = row.optionalString(1) ?? derived(id)
        }
        return names
    }

    /// Each named device's name, by device id.
    func all() throws -> [String: String] {
        var names: [String: String] = [:]
        try db.forEachRow(sql: "SELECT id, name FROM devices WHERE name IS NOT NULL") { row in
            names[try row.string(0)] = try row.string(1)
        }
        return names
    }

    /// The names the log's naming changes give, replayed from the log alone: what `devices` must hold.
    func replayed() throws -> [String: String] {
        var latest: [String: (stamp: ClockStamp, name: String)] = [:]
        try db.forEachRow(sql: """
            SELECT \(Change.columns) FROM changes WHERE entity = 'device' ORDER BY seq
            """) { row in
            let change = try Change(row: row)
            guard let name = change.fields.name else { return }
            if let current = latest[change.entityID], !(current.stamp < change.stamp) { return }
            latest[change.entityID] = (change.stamp, name)
        }
        return latest.mapValues(\.name)
    }
}

extension DeviceNames {
    /// Every device of `devices`, with its name (nil when unnamed), change count, first and latest change and how
    /// its changes arrived, in the order the store first heard of them. `own` is this store's device id.
    func infos(own: String) throws -> [DeviceInfo] {
        try db.fetchAll(sql: """
            SELECT d.id, d.name, count(c.seq),
                min(coalesce(c.wall, c.hlc / 100000)), max(coalesce(c.wall, c.hlc / 100000)),
                group_concat(DISTINCT CASE WHEN c.seq IS NULL THEN NULL ELSE coalesce(r.kind, 'made here') END)
            FROM devices AS d
            LEFT JOIN changes AS c ON c.device = d.number
            LEFT JOIN receipts AS r ON r.id = c.receipt
            GROUP BY d.number ORDER BY d.number
            """) { row in
            let kinds = Set((row.optionalString(5) ?? "").split(separator: ",").map(String.init))
            let order: [DeviceInfo.Arrival] = [.madeHere, .import, .restore, .sync, .merge, .unrecorded]
            return DeviceInfo(
                id: try row.string(0), name: row.optionalString(1), isThisDevice: try row.string(0) == own,
                changeCount: try row.int(2), firstChange: row.isNull(3) ? nil : try row.int64(3),
                lastChange: row.isNull(4) ? nil : try row.int64(4),
                arrivals: order.filter { kinds.contains($0.rawValue) })
        }
    }
}

extension DeviceNames {
    /// The tools whose files are recorded under a device of their own, `import-` and the format's name
    /// (`InteropFormat`'s raw values), with the name shown for it.
    static let importedTools: [String: String] = [
        "kindle": "Kindle", "koreader": "KOReader", "readwise": "Readwise", "w3c": "W3C annotations",
        "csv": "CSV", "calibre": "Calibre",
    ]

    /// The name of the device another tool's file is recorded under (`import-kindle` → `Kindle import`); nil for
    /// any other device id.
    static func derivedName(of id: String) -> String? {
        guard id.hasPrefix("import-"), let tool = importedTools[String(id.dropFirst(7))] else { return nil }
        return tool + " import"
    }
}
