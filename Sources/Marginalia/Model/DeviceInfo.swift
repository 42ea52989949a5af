/// A device the store has heard of: one that made changes of its log, or that a change names.
///
///     for device in try store.devices() { print(device.displayName, device.changeCount) }
public struct DeviceInfo: Hashable, Sendable {
    /// How the changes of a device reached this store.
    public enum Arrival: String, Hashable, Sendable {
        /// Made on this device, by this store.
        case madeHere = "made here"
        /// By one of the receipts' ways (`import`, `restore`, `sync`, `merge`, `unrecorded`).
        case `import`, restore, sync, merge, unrecorded
    }

    /// The device id.
    public var id: String
    /// What people call it: the name a naming change set (`nameDevice`), else, for the device another tool's file
    /// is recorded under, that import's (`Kindle import`); nil otherwise, and the id stands for it.
    public var name: String?
    /// Whether it is this store's own device.
    public var isThisDevice: Bool
    /// How many changes of the log it made.
    public var changeCount: Int
    /// When its first change of the log was made (milliseconds since 1970); nil without changes.
    public var firstChange: Int64?
    /// When its latest change of the log was made (milliseconds since 1970); nil without changes.
    public var lastChange: Int64?
    /// How its changes arrived, in this order: made here, then the receipts' kinds.
    public var arrivals: [Arrival]
}
