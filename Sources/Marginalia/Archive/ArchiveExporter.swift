import Foundation

/// A store written as an archive: the whole store or a filtered part of it, to a sink or to a file
/// (`exportArchive`), or as a backup verified before it replaces anything (`ArchiveExporter+Backup`). It reads the
/// store through the core's own operations (the log and its hash chain, the projection's rows).
struct ArchiveExporter {
    /// The connection the archive is read from.
    let store: StoreReader

    var db: WriteBehindDatabase { store.db }

    /// Writes the store as an archive to `sink`: header (with the head of the log's hash chain), every change (in
    /// the log's order), the current annotations (by id) and reading positions (by document), trailer.
    ///
    /// Streams: memory does not grow with the store. Reads one snapshot of the store, so a write made
    /// meanwhile by another process is either wholly in the archive or not at all. The output is the same for
    /// the same store but for the header's `createdAt`.
    /// - Parameter createdAt: the header's creation time (ISO 8601); now by default.
    /// - Returns: the counts written in the trailer.
    @discardableResult
    func exportArchive(to sink: any ByteSink, filter: ExportFilter = ExportFilter(),
                       createdAt: String = Timestamp.iso8601(milliseconds: Timestamp.nowMilliseconds()),
                       level: Int = GzipWriter.defaultLevel) throws -> ArchiveCounts {
        try exportArchive(to: sink, filter: filter, createdAt: createdAt, level: level, head: .recomputedFirst)
    }

    /// Where the header's head comes from.
    enum HeadSource {
        /// The chain recomputed over the whole log before anything is written: one more pass over the log.
        case recomputedFirst
        /// The stored head, the chain recomputed as the changes are written (a full archive reads them all):
        /// `StoredChainBroken` is thrown after the changes when the two differ, and the archive must then be
        /// written again with `recomputedFirst`.
        case storedChecked
    }

    /// The log's stored digests do not hold; the archive being written names a head its changes do not rebuild.
    struct StoredChainBroken: Error {}

    private func exportArchive(to sink: any ByteSink, filter: ExportFilter, createdAt: String, level: Int,
                               head: HeadSource) throws -> ArchiveCounts {
        let gzip = PipelinedGzipWriter(gzip: try GzipWriter(sink: sink, level: level))
        var lines = LineWriter { block in try gzip.write(block) }
        do {
            let counts = try db.transaction(.deferred) {
                try writeArchive(into: &lines, filter: filter, createdAt: createdAt, head: head)
            }
            try lines.flush()
            try gzip.finish()
            return counts
        } catch {
            try? gzip.stop()
            throw error
        }
    }

    /// Writes the archive to the file at `path`, through a temporary file beside it that is flushed to disk
    /// and renamed over `path` only when complete.
    ///
    /// The target is checked first (`OutputTarget`): a store, its own files, content, a directory, FIFO, device
    /// or socket is refused, and an existing file replaced only with `force`. A symbolic link is written through.
    /// With `encryption`, the file is an age file whose payload is the archive, encrypted to its recipients (or
    /// with its passphrase).
    /// - Throws: `OutputRefusal` for a target that must not be replaced; the target is then untouched.
    @discardableResult
    func exportArchive(toFile path: String, filter: ExportFilter = ExportFilter(), force: Bool = false,
                       encryption: AgeKey? = nil) throws -> ArchiveCounts
    {
        let target = try OutputTarget.resolve(path, policy: store.outputPolicy(force: force))
        return try target.write(purpose: "export") { temporary in
            // A file can be written again: the head is checked as the changes are written, not in a pass of its
            // own, and only a store whose stored chain does not hold has its archive written a second time.
            func attempt(_ head: HeadSource) throws -> ArchiveCounts {
                let descriptor = try temporary.openForWriting()
                let file = FileSink(fileDescriptor: descriptor, name: temporary.path, closesOnDeinit: true)
                guard ftruncate(descriptor, 0) == 0 else { throw IOError.posix("ftruncate", path: temporary.path) }
                let age = try encryption.map { try AgeEncryptingSink(to: $0, sink: file) }
                let counts = try exportArchive(to: age ?? file, filter: filter,
                                               createdAt: Timestamp.iso8601(milliseconds: Timestamp.nowMilliseconds()),
                                               level: GzipWriter.defaultLevel, head: head)
                try age?.finish()
                try file.close()
                return counts
            }
            do {
                return try attempt(.storedChecked)
            } catch is StoredChainBroken {
                return try attempt(.recomputedFirst)
            }
        }
    }

    /// Writes the whole archive: the header (with the log's head), the receipts, the changes in the log's order,
    /// the state records, the trailer with the counts.
    private func writeArchive(into lines: inout LineWriter, filter: ExportFilter,
                              createdAt: String, head: HeadSource) throws -> ArchiveCounts {
        // The chain as recomputed over the rows written, not as stored: a full archive's changes then rebuild it
        // exactly, even from a store whose stored digests were tampered with (which `verify` reports). A full
        // archive reads every change, so the stored head is checked against the chain recomputed as they are written.
        let stored = head == .storedChecked && filter.isEmpty ? try store.log.head() : nil
        try writeHeader(into: &lines, filter: filter, createdAt: createdAt,
                        head: try stored ?? store.log.recomputeChain().head)
        // How the changes this store did not make arrived, for a restore to keep (format 4): every receipt, read
        // from its own small table rather than found through the log.
        try db.forEachRow(sql: "SELECT \(Receipts.columns) FROM receipts ORDER BY id") { row in
            try lines.write(try Receipt(row: row).archiveRecord)
        }
        var counts = ArchiveCounts()
        let since = HLC(milliseconds: max(0, filter.since ?? 0), counter: 0)
        let document = filter.document.map(DatabaseValue.text) ?? .null
        try writeChanges(into: &lines, since: since, document: document, checking: stored, counts: &counts)
        try writeStates(into: &lines, since: since, document: document, counts: &counts)
        try lines.write(counts.trailerJSON)
        return counts
    }

    /// The header: this device, the schema, the editions the annotations are anchored on, the filter of a partial
    /// archive, and the log's `head`.
    private func writeHeader(into lines: inout LineWriter, filter: ExportFilter, createdAt: String,
                             head: LogHead) throws {
        var filterText: [String: String] = [:]
        if let document = filter.document { filterText["document"] = document }
        if let since = filter.since { filterText["since"] = Timestamp.iso8601(milliseconds: since) }
        let editions = try db.fetchAll(
            sql: "SELECT created_edition FROM annotations UNION SELECT anchor_edition FROM annotations ORDER BY 1"
        ) { try $0.string(0) }
        let header = ArchiveHeader(
            device: store.deviceID, createdAt: createdAt, schemaVersion: Int64(UserSchema.currentVersion),
            editions: editions, partial: !filter.isEmpty, filter: filterText, head: head)
        try lines.write(header.json)
    }

    /// The changes in scope, in the log's order; with `stored`, the chain recomputed over them must end at that
    /// head, digest for digest (`StoredChainBroken` otherwise).
    private func writeChanges(into lines: inout LineWriter, since: HLC, document: DatabaseValue,
                              checking stored: LogHead?, counts: inout ArchiveCounts) throws {
        var chain = LogHead(sequence: 0, digest: ChangeDigest.genesis)
        var chainHolds = true
        // The log is read in its own order (seq, the table's key); "+hlc" keeps the planner from reading it through
        // the clock index and sorting it again: "the unary "+" operator … will prevent the term from constraining
        // an index" (https://www.sqlite.org/optoverview.html#disqualifying_where_clause_terms_using_unary_).
        try db.forEachRow(
            sql: """
                SELECT \(Change.columns), seq, digest, receipt FROM changes
                WHERE +hlc >= ?1 AND (?2 IS NULL
                    OR (entity = 'annotation' AND entity_id IN (SELECT id FROM annotations WHERE document = ?2))
                    OR (entity = 'position' AND entity_id = ?2) OR entity = 'device')
                ORDER BY seq
                """,
            arguments: [since.packedBound, document]
        ) { row in
            let receipt = row.optionalInt(Change.columnCount + 2).map(Int64.init)
            try lines.writeLine { writer in try ChangeCodec.write(row: row, receipt: receipt, to: &writer) }
            if stored != nil {
                chain = LogHead(sequence: try row.int64(Change.columnCount),
                                digest: try ChangeDigest.next(after: chain.digest, row: row))
                // Byte for byte, not Swift's canonical equivalence.
                chainHolds = chainHolds && (row.optionalString(Change.columnCount + 1) ?? "").utf8
                    .elementsEqual(chain.digest.utf8)
            }
            counts.changes += 1
            try store.reportProgress("exporting changes", done: counts.changes)
        }
        if let stored, !chainHolds || chain != stored { throw StoredChainBroken() }
    }

    /// The state records in scope: each annotation, then each reading position.
    private func writeStates(into lines: inout LineWriter, since: HLC, document: DatabaseValue,
                             counts: inout ArchiveCounts) throws {
        try db.forEachRow(
            sql: """
                SELECT \(Projection.annotationColumns()) FROM annotations
                WHERE updated_hlc >= ?1 AND (?2 IS NULL OR document = ?2) ORDER BY id
                """,
            arguments: [since.packedBound, document]
        ) { row in
            // Straight to the line, without the JSON tree (whose object is a dictionary built for each of them).
            let annotation = try Annotation(row: row)
            try lines.writeLine { writer in try ArchiveFormat.writeRecord(annotation, to: &writer) }
            counts.annotations += 1
            try store.reportProgress("exporting annotations", done: counts.annotations)
        }
        try db.forEachRow(
            sql: """
                SELECT document, passage, offset, updated_hlc FROM positions
                WHERE updated_hlc >= ?1 AND (?2 IS NULL OR document = ?2) ORDER BY document
                """,
            arguments: [since.description, document]
        ) { row in
            try lines.write(ArchiveFormat.record(try ReadingPosition(row: row)))
            counts.positions += 1
        }
    }
}
