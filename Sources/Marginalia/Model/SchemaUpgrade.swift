/// How a store of an older schema was made readable when it was opened to be read.
///
/// After an app update the first thing a person does is look at their notes: a read of an older store upgrades
/// it in place when it may write there (the one write a read makes), and otherwise reads a copy upgraded in
/// memory, leaving the file as it was.
public struct SchemaUpgrade: Equatable, Sendable {
    /// Where the upgrade was made.
    public enum Kind: Equatable, Sendable {
        /// The store's file was upgraded, in one transaction.
        case inPlace
        /// The file could not be written: a copy of it was upgraded in memory and is what is read.
        case inMemoryCopy
    }

    /// The store's schema version before.
    public var from: Int32
    /// The schema version read.
    public var to: Int32
    /// Where the upgrade was made.
    public var kind: Kind

    /// An upgrade from schema `from` to `to`, made as `kind` says.
    package init(from: Int32, to: Int32, kind: Kind) {
        self.from = from
        self.to = to
        self.kind = kind
    }
}
