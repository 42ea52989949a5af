// MARK: - Creates inside a batch, written together

extension StoreConnection {
    /// How many created rows a batch holds back at most before writing them.
    static let deferredCreateLimit = 1000

    /// Holds back the row of an annotation a batch has just created (its change is in the log already): the rows
    /// go into `annotations` together (`writeDeferredCreates`), when `deferredCreateLimit` of them wait, before
    /// any other statement runs on this connection (`WriteBehindDatabase`), and before the batch commits.
    ///
    /// A row written by itself is one statement that changes the notes index, and FTS5 writes its pending index
    /// data out at the end of each such statement, as a new index segment to merge later: that was most of what a
    /// batch of creates cost. Written together, the rows make one segment. Nothing can tell the difference: every
    /// statement that could read the rows runs after they are written.
    func deferCreate(_ row: RegisterRow) throws {
        guard batchState != nil else { return try projection.save([row]) }
        batchState?.deferredCreates.append(row)
        if (batchState?.deferredCreates.count ?? 0) >= Self.deferredCreateLimit {
            try writeDeferredCreates()
        } else {
            writeDeferredCreatesBeforeNextStatement()
        }
    }

    /// Has the connection write the rows held back before it runs its next statement.
    private func writeDeferredCreatesBeforeNextStatement() {
        guard !(batchState?.deferredCreates.isEmpty ?? true), db.pending == nil else { return }
        db.pending = { [weak self] in try self?.writeDeferredCreates() }
    }

    /// Writes the rows `deferCreate` held back, in one statement per kind of write (`save`). A failure fails the
    /// batch, as the failure of the writes that made them would have.
    func writeDeferredCreates() throws {
        db.pending = nil
        guard let rows = batchState?.deferredCreates, !rows.isEmpty else { return }
        batchState?.deferredCreates = []
        do {
            try projection.save(rows)
        } catch {
            if batchState?.failure == nil { batchState?.failure = error }
            throw error
        }
    }

    /// Runs `body`, a create inside a batch, with the rows held back still held: its own statements read the
    /// content and the devices and append to the log, and none reads the annotations or the notes index.
    func holdingDeferredCreates<T>(_ body: () throws -> T) rethrows -> T {
        guard !(batchState?.deferredCreates.isEmpty ?? true) else { return try body() }
        db.pending = nil
        defer { writeDeferredCreatesBeforeNextStatement() }
        return try body()
    }
}
