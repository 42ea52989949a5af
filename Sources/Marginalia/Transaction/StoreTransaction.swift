import Foundation

/// One write transaction of a store, and everything a write needs for that transaction only: the database under
/// the write lock, this device's id and the clock as they stand in it, and what must follow its commit.
///
/// The connection makes one when it takes the write lock (`StoreConnection.write`), reads the store's latest clock
/// and device id into it, and hands it to every part the write runs (the merger, the recording of local changes,
/// an import's steps). After `COMMIT` the connection takes what the transaction settled (its device id, its clock,
/// its clock warnings); a transaction that rolls back takes its effects with it. No part keeps it, or the
/// connection, beyond the write.
///
/// A device id changes in one way (`renewDeviceID`), under one rule: the transaction's later changes carry the new
/// id at once, and the store's id becomes it when the transaction commits.
final class StoreTransaction {
    /// Every statement of the write runs through it: it writes the rows the transaction held back first.
    let db: WriteBehindDatabase
    /// This device's id: the `device` of every change the transaction records.
    private(set) var deviceID: String
    /// The hybrid logical clock, moved on by every change the transaction records or takes in.
    private(set) var clock: HybridLogicalClock
    /// Called every so many items by long work, to show progress.
    let progressHandler: ProgressHandler?
    /// Whether a merge may delete most of the live annotations (`DeletionBrake`).
    let allowsMassDeletion: Bool
    /// The local writes made with the wall clock far from the store's newest change (each also noted in the store).
    private(set) var clockWarnings: [ClockWarning] = []
    /// What the transaction knows between its statements: the devices table, the newest own wall time, a failed
    /// local write, the rows of new annotations held back.
    var state = TransactionState()

    /// A transaction on `db`, which holds the write lock, with the store's state read from it.
    /// - Parameter clock: the connection's clock, which then observes the latest change the log holds.
    init(db: WriteBehindDatabase, clock: HybridLogicalClock, progressHandler: ProgressHandler?,
         allowsMassDeletion: Bool) throws {
        self.db = db
        self.progressHandler = progressHandler
        self.allowsMassDeletion = allowsMassDeletion
        var clock = clock
        // BEGIN IMMEDIATE holds the write lock until COMMIT: the log's latest clock and the device id, read once
        // now, can only be changed by this transaction.
        if let stored = try db.int(sql: "SELECT max(hlc) FROM changes").flatMap({ HLC(packed: $0) }) {
            clock.observe(stored)
        }
        self.clock = clock
        guard let device = try db.text(sql: "SELECT value FROM meta WHERE key = 'device_id'") else {
            throw StoreError.notAStore(path: "the store", reason: "it has no device id")
        }
        deviceID = device
    }

    /// The change log, in this transaction.
    var log: ChangeLog { ChangeLog(db: db) }
    /// The current tables, their clocks' devices numbered as this transaction numbers them.
    var projection: Projection { Projection(db: db, devices: { try self.deviceTable(naming: $0) }) }
    /// The local writes made with the wall clock far from the store's newest change, in this transaction.
    var clockNotes: ClockNotes { ClockNotes(db: db, maxDrift: clock.maxDrift) }
    /// The wall clock now (milliseconds since 1970), as the clock reads it.
    var wallMilliseconds: Int64 { clock.wallMilliseconds }

    /// Gives the store a new device id, and returns it: changes made under its old id were found elsewhere (the
    /// store was copied to another machine). The one way a device id changes: the transaction's later changes
    /// carry the new id, and the store's id becomes it when the transaction commits.
    @discardableResult
    func renewDeviceID() throws -> String {
        let renewed = Identifiers.make()
        try keepDeviceID(renewed)
        return renewed
    }

    /// Takes `id` as this store's device id again (a restore keeps the id of the store it replaced), under the
    /// rule of `renewDeviceID`.
    func keepDeviceID(_ id: String) throws {
        try db.execute(sql: "UPDATE meta SET value = ? WHERE key = 'device_id'", arguments: [id])
        deviceID = id
    }

    /// Moves the clock past `hlc`, a change the transaction takes in.
    func observe(_ hlc: HLC) {
        clock.observe(hlc)
    }

    /// A fresh timestamp for a change made now.
    func tick() throws -> HLC {
        try clock.tick()
    }

    /// Reports progress every `every` items (and at item 0 never); there the work stops if its task was cancelled
    /// or the handler asks it to.
    /// - Throws: `CancellationError`, which rolls the transaction back.
    func reportProgress(_ task: String, done: Int, total: Int? = nil, every: Int = 1000) throws {
        try Self.reportProgress(to: progressHandler, task, done: done, total: total, every: every)
    }

    /// Reports progress to `handler` every `every` items, as `reportProgress` does for a transaction's handler.
    static func reportProgress(to handler: ProgressHandler?, _ task: String, done: Int, total: Int? = nil,
                               every: Int = 1000) throws {
        guard done > 0, done % every == 0 else { return }
        if Task.isCancelled { throw CancellationError() }
        guard let handler else { return }
        if handler(ProgressReport(task: task, done: done, total: total)) == .stop {
            throw CancellationError()
        }
    }

    /// The devices table: the copy read in this transaction when it names every device of `needed`, else read now
    /// (and kept for the rest of the transaction).
    func deviceTable(naming needed: some Sequence<String> = [String]()) throws -> DeviceTable {
        if let cached = state.devices, needed.allSatisfy(cached.contains) { return cached }
        let table = try DeviceTable(db)
        state.devices = table
        return table
    }

    /// Forgets the transaction's copy of the devices table: rows went into the log by a way that may have numbered
    /// new devices (`ChangeLog.appendStaged`).
    func devicesChanged() {
        state.devices = nil
    }

    /// Notes a clock warning of a local write (`noteClock`).
    func warn(_ warning: ClockWarning) {
        clockWarnings.append(warning)
    }

    /// Ends the work of the transaction before it commits: writes the rows held back and the newest own wall
    /// time, and throws the error of a local write that failed inside it (which rolls it back).
    func finish() throws {
        try writeDeferredCreates()
        try clockNotes.write(state.ownWall)
        if let failure = state.failure { throw failure }
    }

    /// Runs one local write inside the transaction. A write that fails fails the whole transaction: every later
    /// write in it throws the same error, and so does the transaction, which rolls back whole, even when the
    /// caller caught the error. No part of a failed write is ever committed.
    ///
    /// A write takes no savepoint of its own. A savepoint would let its failure undo it alone, but "the ROLLBACK
    /// TO command reverts the state of the database back to what it was just after the corresponding SAVEPOINT"
    /// (https://www.sqlite.org/lang_savepoint.html): SQLite keeps the old content of every page the write touches
    /// (the notes index's pages too, which it writes out at each savepoint) in a temporary file, a large part of
    /// what a batch of creates cost beyond the same rows inserted through the C API.
    func localWrite<T>(_ body: () throws -> T) throws -> T {
        if let failure = state.failure { throw failure }
        do {
            return try body()
        } catch {
            state.failure = error
            throw error
        }
    }
}

@available(*, unavailable, message: "A transaction is confined to the thread that runs it.")
extension StoreTransaction: Sendable {}

/// What a running transaction knows, from when it takes the write lock (and has observed the log's latest clock)
/// to when it commits or rolls back.
struct TransactionState {
    /// The devices table as read in the transaction (nil until read, and after a device was added): a batch of
    /// local writes reads it once, not once per write. It never outlives the transaction, so it never holds a
    /// number a rolled-back transaction gave out.
    var devices: DeviceTable?
    /// The newest wall time of a change made on this machine, as the transaction has moved it (`noteClock`), and
    /// as it was stored when the transaction read it.
    var ownWall: OwnWall?
    /// The error of a local write that failed inside the transaction (see `localWrite`): it then rolls back whole,
    /// and throws it, even when its body caught it.
    var failure: (any Error)?
    /// The rows of annotations the transaction created, not yet in `annotations` (see `deferCreate`).
    var deferredCreates: [RegisterRow] = []
}
