extension Merger {
    /// Merges every quarantined change dated at or before `latestAllowed` (milliseconds) into the log, in clock
    /// order, exactly as an import would have; call it inside a write transaction. Returns how many it merged.
    ///
    /// The merge rule does not depend on the order changes arrive in, so a change applied late picks the same
    /// winner as on a replica that took it at once.
    func releaseQuarantine(latestAllowed: Int64) throws -> Int {
        var released = 0
        while true {
            let due = try quarantine.due(latestAllowed: latestAllowed, limit: 1000)
            guard !due.isEmpty else { return released }
            var report = MergeReport()
            var sawOwnDevice = false
            // Each merged (or already present) change leaves the quarantine, so every round takes new ones; each
            // run of changes that came by the same receipt is merged pointing to it.
            var start = 0
            while start < due.count {
                var end = start + 1
                while end < due.count, due[end].receipt == due[start].receipt { end += 1 }
                // A change carried over from a store without receipts came by an unknown way.
                let receipt = try ReceiptSlot(
                    existing: due[start].receipt
                        ?? receipts.open(ReceiptSource(kind: .unrecorded), receivedAt: transaction.wallMilliseconds))
                try merge(due[start..<end].map { ($0.change, 0) }, receipt: receipt,
                          into: &report, future: .accept, sawOwnDevice: &sawOwnDevice)
                start = end
            }
            released += due.count
        }
    }

    /// Merges every change held in quarantine now, whenever it was made (`import --accept-future`,
    /// `quarantine --release`), in the merger's transaction; returns how many.
    /// - Throws: `StoreError.invalidChange` naming a held change whose clock the log cannot hold (one an earlier
    ///   version held): nothing is merged.
    func releaseAllQuarantined() throws -> Int {
        do {
            if let held = try quarantine.unstorable() {
                do {
                    try held.hlc.checkStorable()
                } catch {
                    throw StoreError.invalidChange(
                        reason: "change \(held.changeID), held in quarantine: \(error); nothing was released")
                }
            }
            return try releaseQuarantine(latestAllowed: .max)
        }
    }
}
