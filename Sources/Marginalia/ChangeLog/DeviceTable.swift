/// The devices of a store's log by number (`devices`, schema 5): the log and the clocks of the current tables name
/// a device by its number, a small integer, instead of its 36-character id.
///
/// Loaded whole for each read or write that needs it (the table holds a row per device that ever wrote to the
/// store, a handful): a copy kept across transactions could outlive a number that a rolled-back transaction gave
/// out, and that SQLite then gives to another device.
struct DeviceTable: Sendable {
    private var numbers: [String: Int64] = [:]
    private var ids: [Int64: String] = [:]

    /// Reads every row of `devices`.
    init(_ db: any Database) throws {
        try db.forEachRow(sql: "SELECT number, id FROM devices") { row in
            let number = try row.int64(0)
            let id = try row.string(1)
            numbers[id] = number
            ids[number] = id
        }
    }

    /// The number of the device `id`.
    /// - Throws: `StoreError.corruptRow` when the device has none (its changes are not in the log).
    func number(of id: String) throws -> Int64 {
        guard let number = numbers[id] else {
            throw StoreError.corruptRow(reason: "device \(id) has no number in devices")
        }
        return number
    }

    /// The id of the device numbered `number`.
    func id(of number: Int64) -> String? {
        ids[number]
    }

    /// Whether the device `id` has a number.
    func contains(_ id: String) -> Bool {
        numbers[id] != nil
    }
}
