/// What merging one archive into a store did, and what it checked.
struct MergeResult {
    var report: ImportReport
    var verification: ArchiveVerification
    /// The archive held new changes made under this store's own device id.
    var sawOwnDevice: Bool
    /// How many new changes point to the copy of a receipt the archive carried (a restore), not to the merge's.
    var carriedChanges = 0
}

extension ArchiveImporter {
    /// Reads an archive and merges its changes into this store; call it inside a write transaction, which the
    /// caller commits only if this returns.
    ///
    /// With `checkState` (for a store that was empty, so that its state is the archive's own), each state record
    /// of a full archive must equal the state rebuilt from the archive's changes, and `live`'s too when given.
    /// - Throws: `ArchiveError` naming the file, the line and the reason.
    /// The changes it adds point to a new receipt of kind `receipt` naming the file, with its size and SHA-256; a
    /// restore's (`receipt` `.restore`) keeps the receipts the archive carries, and the changes that arrived by one
    /// point to its copy.
    func mergeArchive(path: String, limits: ArchiveLimits, checkState: Bool, comparingWith live: StoreReader?,
                      receipt kind: Receipt.Kind, future: FutureChanges = .accept) throws -> MergeResult
    {
        let receipt = ReceiptSlot(ReceiptSource(kind: kind, file: path))
        let plan: ArchiveMergePlan = try Merger.projectionIsEmpty(db)
            ? .projectOnce(rebuiltRecords: nil) : .incremental(known: 0)
        let result = try mergeRecords(file: path, receipt: receipt, checkState: checkState, comparingWith: live,
                                      future: future, plan: plan, keepsReceipts: kind == .restore) { handle in
            try ArchiveReader(path: path, limits: limits).readAhead(handle)
        }
        var own = result.report.merge
        own.newChanges -= result.carriedChanges
        try store.receipts.finish(receipt, own,
                                  size: Int64(result.verification.summary.compressedBytes),
                                  sha256: result.verification.summary.sha256)
        return result
    }

    /// Merges the records `records` hands to its handler, in file order, as `plan` says, and returns the summary
    /// it returns; see `mergeArchive`. Changes quarantined by `future` leave the state unchecked: it cannot be the
    /// archive's.
    func mergeRecords(file path: String, receipt: ReceiptSlot, checkState: Bool, comparingWith live: StoreReader?,
                      future: FutureChanges, plan: ArchiveMergePlan, keepsReceipts: Bool = false,
                      records: ((ArchiveRecord, Int) throws -> Void) throws -> ArchiveSummary) throws -> MergeResult
    {
        let merge = RecordMerge(importer: self, file: path, receipt: receipt, checkState: checkState, live: live,
                                future: future, plan: plan, keepsReceipts: keepsReceipts)
        let summary = try records { record, line in try merge.take(record, line: line) }
        return try merge.finish(summary)
    }

    /// Checks a reading position's state record against the position the changes rebuilt (and `live`'s).
    func checkPositionState(_ object: JSONObject, comparingWith live: StoreReader?, file: String,
                            line: Int) throws {
        guard case .string(let document)? = object["document"] else { return }
        func mismatch(_ reason: String) -> ArchiveError {
            ArchiveError(file: file, line: line, kind: .mismatch, reason: reason)
        }
        guard try store.position(document: document).map(ArchiveFormat.record) == .object(object) else {
            throw mismatch("the reading position of \(document) differs from the replay of its changes")
        }
        if let live, try live.position(document: document).map(ArchiveFormat.record) != .object(object) {
            throw mismatch("the reading position of \(document) differs from the live store")
        }
    }

    /// Checks, once every record is in, that the state the changes rebuilt is the archive's whole state (and the
    /// live store's), and that they rebuilt the writer's log: the same hash chain.
    func checkRebuiltState(against summary: ArchiveSummary, comparingWith live: StoreReader?,
                           file path: String) throws {
        func mismatch(_ line: Int?, _ reason: String) -> ArchiveError {
            ArchiveError(file: path, line: line, kind: .mismatch, reason: reason)
        }
        let counts = try store.annotationCounts()
        guard counts.live + counts.deleted == summary.counts.annotations,
              try store.positions().count == summary.counts.positions else {
            throw mismatch(nil, "the changes rebuild \(counts.live + counts.deleted) annotations, "
                + "but the archive's state holds \(summary.counts.annotations)")
        }
        if let live {
            let liveCounts = try live.annotationCounts()
            let liveChanges = try live.changeCount()
            guard liveCounts.live + liveCounts.deleted == summary.counts.annotations,
                  liveChanges == summary.counts.changes else {
                throw mismatch(nil, "the archive holds \(summary.counts.changes) changes and "
                    + "\(summary.counts.annotations) annotations, the live store \(liveChanges) and "
                    + "\(liveCounts.live + liveCounts.deleted)")
            }
        }
        // A full archive merged into an empty store rebuilds the writer's log in its order: the same hash chain.
        if let head = summary.header.head {
            let rebuilt = try store.log.head()
            guard rebuilt == head else {
                throw mismatch(nil, "its changes rebuild a log whose head is seq \(rebuilt.sequence), digest "
                    + "\(rebuilt.digest), but its header names seq \(head.sequence), digest \(head.digest): changes "
                    + "were left out, added, edited or reordered since it was written")
            }
        }
    }

    /// Checks a run of annotation state records against this store's rows (and `live`'s), one query for all.
    func checkAnnotationStates(_ states: [(id: String, record: StateRecord, line: Int)],
                               comparingWith live: StoreReader?, file: String) throws {
        let ids = try ProjectionCache.jsonList(states.map(\.id))
        func rows(of store: some StoreAccess) throws -> [String: Annotation] {
            var found: [String: Annotation] = [:]
            try store.db.forEachRow(
                sql: "SELECT \(Projection.annotationColumns()) FROM annotations WHERE id IN (SELECT value FROM json_each(?))",
                arguments: [ids]
            ) { row in
                let annotation = try Annotation(row: row)
                found[annotation.id] = annotation
            }
            return found
        }
        let rebuilt = try rows(of: store)
        let liveRows = try live.map(rows(of:))
        var text = JSONWriter(capacity: 4096)
        for (id, record, line) in states {
            func mismatch(_ reason: String) -> ArchiveError {
                ArchiveError(file: file, line: line, kind: .mismatch, reason: reason)
            }
            let expected: JSONValue
            switch record {
            case .parsed(let object):
                expected = .object(object)
            case .staged(_, let staged):
                // The same text is the same record, and a good one; another text may still be, in another key
                // order, once it passes the checks reading the file makes.
                if live == nil, let annotation = rebuilt[id] {
                    text.reset()
                    try ArchiveFormat.writeRecord(annotation, to: &text)
                    if JSONObject.sameBytes(text.bytes, staged) { continue }
                }
                expected = .object(try ArchiveReader.checkedAnnotation(staged, line: line, file: file))
            }
            guard let annotation = rebuilt[id] else {
                throw mismatch("annotation \(id) has a state record but its changes do not create it")
            }
            guard ArchiveFormat.record(annotation) == expected else {
                throw mismatch("the state record of annotation \(id) differs from the replay of its changes")
            }
            if let liveRows, liveRows[id].map(ArchiveFormat.record) != expected {
                throw mismatch("the state record of annotation \(id) differs from the live store")
            }
        }
    }
}

/// An annotation's state record waiting to be checked: parsed, or as the text it was staged as.
enum StateRecord {
    case parsed(JSONObject)
    case staged(id: String, text: String)

    /// The state record `record` is, if it is an annotation's.
    init?(_ record: ArchiveRecord) {
        switch record {
        case .annotation(let object): self = .parsed(object)
        case .annotationText(let id, let text): self = .staged(id: id, text: text)
        default: return nil
        }
    }

    /// The annotation's id; nil when a parsed record has none as a string.
    var id: String? {
        switch self {
        case .parsed(let object): object["id"]?.stringValue
        case .staged(let id, _): id
        }
    }
}
