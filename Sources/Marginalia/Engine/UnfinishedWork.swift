/// Work an adapter left for the next open of a store, such as an archive import stopped midway, which the archive
/// adapter finishes. The engine knows no adapter: each registers its work in the library's composition
/// (`Marginalia.swift`), and `StoreConnection.open` runs what is registered.
struct UnfinishedWork: Sendable {
    /// Whether a store opened to read has work left that may be finished now (the open then takes a writer to
    /// finish it, as a migration would: the store is then read whole, as it will be from now on).
    let isLeft: @Sendable (_ store: StoreConnection) throws -> Bool
    /// Finishes what can be finished on a store opened to write; returns what it finished (the files it names).
    let finish: @Sendable (_ store: StoreConnection) -> [String]
}
