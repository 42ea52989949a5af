// MARK: - Creates inside a transaction, written together

extension StoreTransaction {
    /// How many created rows a transaction holds back at most before writing them.
    static let deferredCreateLimit = 1000

    /// Holds back the row of an annotation the transaction has just created (its change is in the log already):
    /// the rows go into `annotations` together (`writeDeferredCreates`), when `deferredCreateLimit` of them wait,
    /// before any other statement runs on this connection (`WriteBehindDatabase`), and before the transaction
    /// commits.
    ///
    /// A row written by itself is one statement that changes the notes index, and FTS5 writes its pending index
    /// data out at the end of each such statement, as a new index segment to merge later: that was most of what a
    /// batch of creates cost. Written together, the rows make one segment. Nothing can tell the difference: every
    /// statement that could read the rows runs after they are written.
    func deferCreate(_ row: RegisterRow) throws {
        state.deferredCreates.append(row)
        if state.deferredCreates.count >= Self.deferredCreateLimit {
            try writeDeferredCreates()
        } else {
            writeDeferredCreatesBeforeNextStatement()
        }
    }

    /// Has the connection write the rows held back before it runs its next statement.
    private func writeDeferredCreatesBeforeNextStatement() {
        guard !state.deferredCreates.isEmpty, db.pending == nil else { return }
        db.pending = { [weak self] in try self?.writeDeferredCreates() }
    }

    /// Writes the rows `deferCreate` held back, in one statement per kind of write (`save`). A failure fails the
    /// transaction, as the failure of the writes that made them would have.
    func writeDeferredCreates() throws {
        db.pending = nil
        let rows = state.deferredCreates
        guard !rows.isEmpty else { return }
        state.deferredCreates = []
        do {
            try projection.save(rows)
        } catch {
            if state.failure == nil { state.failure = error }
            throw error
        }
    }

    /// Runs `body`, a create inside the transaction, with the rows held back still held: its own statements read
    /// the content and the devices and append to the log, and none reads the annotations or the notes index.
    func holdingDeferredCreates<T>(_ body: () throws -> T) rethrows -> T {
        guard !state.deferredCreates.isEmpty else { return try body() }
        db.pending = nil
        defer { writeDeferredCreatesBeforeNextStatement() }
        return try body()
    }
}
