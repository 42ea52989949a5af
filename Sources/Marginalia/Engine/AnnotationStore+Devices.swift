// MARK: - Devices and their names

extension AnnotationStore {
    /// Names this store's device, as people call it (`laptop`, `Ana's phone`): a change in the log, so that the
    /// name travels with the changes, by archive and sync, and the latest name given wins.
    ///
    ///     try store.nameDevice("laptop")
    /// - Throws: `MarginaliaError` (`.invalidArgument`) for a name that is empty, longer than 64 characters, not in
    ///   NFC, or with control characters or surrounding spaces.
    @discardableResult
    public func nameDevice(_ name: String) throws -> Change {
        do {
            try ChangeFields(name: name).checkValues()
        } catch {
            throw MarginaliaError(category: .invalidArgument, reason: .field(error))
        }
        return try engine.write { store in
            try store.write { transaction in
                try transaction.record(.device, transaction.deviceID, .set, ChangeFields(name: name))
            }
        }
    }

    /// Every device the store has heard of, in the order it first heard of each: this one, and those whose
    /// changes it received, with names, counts and how their changes arrived.
    public func devices() throws -> [DeviceInfo] {
        try engine.read { store in
            try DeviceNames(db: store.db).infos(own: store.deviceID).map { device in
                var device = device
                if device.name == nil { device.name = DeviceNames.derivedName(of: device.id) }
                return device
            }
        }
    }

    /// This store's own device.
    public func device() throws -> DeviceInfo {
        let own = deviceID
        return try devices().first { $0.id == own }
            ?? DeviceInfo(id: own, name: nil, isThisDevice: true, changeCount: 0, firstChange: nil, lastChange: nil,
                          arrivals: [])
    }

    /// The names of the named devices (and of interop imports' devices), by device id: what a display shows in
    /// place of an id.
    public func deviceNames() throws -> [String: String] {
        // Read by every `log` and `history`: the devices table alone, not the counts `devices()` adds up.
        try engine.read { try DeviceNames(db: $0.db).shown(deriving: DeviceNames.derivedName(of:)) }
    }
}
