/// Work an adapter left for the next open of a store, such as an archive import stopped midway, which the archive
/// adapter finishes. The engine knows no adapter: each registers its work in the library's composition
/// (`Marginalia.swift`), and `StoreConnection.open` runs what is registered.
struct UnfinishedWork: Sendable {
    /// Whether a store opened to read has work left that may be finished now (the open then takes a writer to
    /// finish it, as a migration would: the store is then read whole, as it will be from now on).
    let isLeft: @Sendable (_ store: StoreReader) throws -> Bool
    /// Finishes what can be finished on a store opened to write; returns what it finished and what it gave up.
    let finish: @Sendable (_ store: StoreWriter) -> Outcome

    /// What opening a store did of the work left.
    struct Outcome: Sendable {
        /// The files whose work was finished (an archive whose import was stopped midway).
        var finished: [String] = []
        /// The work given up, as its adapter describes it (an `AbandonedImport`).
        var abandoned: [any Sendable] = []

        mutating func absorb(_ other: Outcome) {
            finished += other.finished
            abandoned += other.abandoned
        }
    }
}
