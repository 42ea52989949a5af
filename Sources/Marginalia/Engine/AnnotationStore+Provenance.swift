// MARK: - The hash chain and the receipts

extension AnnotationStore {
    /// Every receipt: how the changes this store did not make arrived (each import, restore, sync segment and
    /// merge that brought something new), oldest first.
    package func receipts() throws -> [Receipt] {
        try engine.read { try $0.receipts.all() }
    }

    /// The receipt each of `changeIDs` arrived by, by change id; a change made on this device (or not in the log)
    /// has none.
    package func receipts(ofChanges changeIDs: [String]) throws -> [String: Receipt] {
        try engine.read { try $0.receipts.of(changes: changeIDs) }
    }

    /// The head of the log's hash chain as stored: its newest row and that row's digest.
    package func logHead() throws -> LogHead {
        try engine.read { try $0.log.head() }
    }
}
