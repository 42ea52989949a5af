import Foundation

/// What a restore did (or, with a dry run, would do).
public struct RestoreReport: Equatable, Sendable {
    /// What checking the archive found before it was restored.
    public var verification: ArchiveVerification
    /// Where the store that was replaced now is; nil when there was none, or for a dry run.
    public var previousStore: String?
    /// The device id the restored store takes for its future changes.
    public var deviceID: String
    /// Whether the restored store keeps the device id, name, keys and roster place of the store it replaced (true),
    /// or is a new device (false: there was no store, it was damaged, or this is a dry run).
    public var keptDevice = false
    /// The restored store's device name, when it has one.
    public var deviceName: String?
    /// For a dry run: how many changes the store to be replaced holds that the archive lacks, which a restore
    /// would set aside, keeping them only in the previous store's copy (the `.bak`); nil otherwise, or when the store
    /// could not be read.
    public var setAside: Int?
}
