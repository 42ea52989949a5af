import Foundation
import Marginalia

/// Export, import, re-import and merge, against `sqlite3 -json | gzip -6`, `gzip -6` alone and the Python
/// reference, all on the same store and the same files.
struct ArchiveBenchmarks {
    let workspace: Workspace
    let options: BenchOptions
    let report: Report
    /// The measured store (N annotations).
    let store: String

    // MARK: - Export

    /// Measures export, in process and as a `marginalia export` process, and the store's size against its archive;
    /// returns the path of a complete archive of the store and the archive's uncompressed bytes.
    func export() throws -> (path: String, uncompressedBytes: Int) {
        Log.say("Export…")
        let archive = workspace.run("export.jsonl.gz")
        // Before the store is opened here: a checkpoint that empties the WAL waits for no reader.
        let measuredSize = try StoreSize.checkpointed(store)
        let source = try AnnotationStore.open(path: store, access: .readOnly)
        var counts = ArchiveCounts()
        // The archive written to a plain file, no fsync: the same work the pipelines below do.
        let seconds = try Timing.median(maxRepeats: options.maxRepeats, prepare: { workspace.remove(archive) }) {
            let sink = try FileSink(path: archive)
            counts = try source.exportArchive(to: sink)
            try sink.close()
        }
        // Through a temporary file, fsync and rename, as `marginalia export FILE` does and as the Python reference
        // does.
        let durable = workspace.run("export-durable.jsonl.gz")
        let durableSeconds = try Timing.median(maxRepeats: options.maxRepeats, prepare: { workspace.remove(durable) }) {
            try source.exportArchive(toFile: durable)
        }
        let raw = workspace.run("export.jsonl")
        try Subprocess.shell("gzip -dc \(Subprocess.quote(archive)) > \(Subprocess.quote(raw))")
        let rawBytes = Double(workspace.size(raw))
        let records = counts.changes + counts.annotations + counts.positions
        report.extra("archive.changes", counts.changes)
        report.extra("archive.annotations", counts.annotations)
        report.extra("archive.positions", counts.positions)
        report.extra("archive.uncompressedBytes", Int(rawBytes))
        report.extra("archive.compressedBytes", workspace.size(archive))
        report.extra("export.seconds", seconds)
        report.extra("exportDurable.seconds", durableSeconds)
        report.add(StoreSize.measurement(
            id: "storeBytes.measured", name: "store size, the measured store",
            store: measuredSize, archiveBytes: Int(rawBytes), archiveName: "its archive's uncompressed JSON",
            target: nil))

        // sqlite3 -json over the same rows, in the same order, piped into gzip -6: the export reads the log in seq
        // order through the library's `Change.columns`, whose expressions give the clock's and the device's text
        // forms (schema 5 stores an integer and a number of `devices`); the same expressions here.
        let piped = workspace.run("sqlite3.json.gz")
        let sql = """
            SELECT change_id, printf('%015d-%05d', hlc / 100000, hlc % 100000) AS hlc,
                (SELECT id FROM devices WHERE number = device) AS device, entity, entity_id, op, fields
            FROM changes ORDER BY seq;
            SELECT id, kind, document, start_passage, start_offset, end_passage, end_offset, quote, prefix, suffix,
                created_edition, anchor_edition, note, color, tags, deleted, created_hlc, updated_hlc
            FROM annotations ORDER BY id;
            SELECT document, passage, offset, updated_hlc FROM positions ORDER BY document;
            """
        let pipeline = "sqlite3 -readonly -json \(Subprocess.quote(store)) \(Subprocess.quote(sql)) | gzip -6 > "
            + Subprocess.quote(piped)
        let pipelineSeconds = try Timing.median(maxRepeats: options.maxRepeats) { try Subprocess.shell(pipeline) }
        let gzipped = workspace.run("raw.jsonl.gz")
        let gzipSeconds = try Timing.median(maxRepeats: options.maxRepeats) {
            try Subprocess.shell("gzip -6 -c \(Subprocess.quote(raw)) > \(Subprocess.quote(gzipped))")
        }
        report.extra("sqlite3Json.compressedBytes", workspace.size(piped))
        let throughput = { (seconds: Double) in Quantity(value: rawBytes / 1_048_576 / seconds, unit: "MiB/s") }
        report.add(Measurement(
            id: "export.vsSqlite3Gzip", name: "export (archive, \(records) records)", figure: throughput(seconds),
            seconds: seconds, referenceName: "sqlite3 -json | gzip -6", reference: throughput(pipelineSeconds),
            referenceSeconds: pipelineSeconds, target: .timeRatioAtMost(1.0)))
        report.add(Measurement(
            id: "export.vsGzip", name: "export (archive)", figure: throughput(seconds), seconds: seconds,
            referenceName: "gzip -6 on the archive's bytes", reference: throughput(gzipSeconds),
            referenceSeconds: gzipSeconds, target: .timeRatioAtMost(1.5)))
        try pythonExport(durableSeconds: durableSeconds, throughput: throughput, swiftRaw: raw)
        try determinism(source: source, first: raw)
        try cliExport(pipeline: pipeline, inProcessSeconds: seconds, throughput: throughput, libraryRaw: raw)
        return (archive, Int(rawBytes))
    }

    private func pythonExport(durableSeconds: Double, throughput: (Double) -> Quantity, swiftRaw: String) throws {
        let output = workspace.run("python-export.jsonl.gz")
        let seconds = try Timing.median(maxRepeats: options.maxRepeats, prepare: { workspace.remove(output) }) {
            try Subprocess.run([options.python, workspace.pythonReference, "export", store, output])
        }
        report.add(Measurement(
            id: "export.vsPython", name: "export (archive, fsync'd file)", figure: throughput(durableSeconds),
            seconds: durableSeconds, referenceName: "Python reference export", reference: throughput(seconds),
            referenceSeconds: seconds, asSpeedup: true))
        let pythonRaw = workspace.run("python-export.jsonl")
        try Subprocess.shell("gzip -dc \(Subprocess.quote(output)) > \(Subprocess.quote(pythonRaw))")
        let same = try Self.sameRecords(swiftRaw, pythonRaw)
        report.extra("pythonExport.sameRecordsAsSwift", same)
        if !same {
            report.note("the Python reference's export differs from the library's beyond the header's createdAt")
        }
    }

    /// Two exports of the same store hold the same records; only the header's creation time may differ.
    private func determinism(source: AnnotationStore, first: String) throws {
        let second = workspace.run("export-again.jsonl.gz")
        let sink = try FileSink(path: second)
        try source.exportArchive(to: sink, createdAt: "2000-01-01T00:00:00.000Z")
        try sink.close()
        let secondRaw = workspace.run("export-again.jsonl")
        try Subprocess.shell("gzip -dc \(Subprocess.quote(second)) > \(Subprocess.quote(secondRaw))")
        let same = try Self.sameRecords(first, secondRaw)
        report.add(Measurement(
            id: "export.deterministic", name: "export is deterministic (same records)",
            figure: Quantity(value: same ? 1 : 0, unit: ""), target: .holds))
    }

    /// Whether two uncompressed archives are equal but for the header's `createdAt`.
    static func sameRecords(_ a: String, _ b: String) throws -> Bool {
        let left = try Data(contentsOf: URL(fileURLWithPath: a))
        let right = try Data(contentsOf: URL(fileURLWithPath: b))
        guard let leftEnd = left.firstIndex(of: 10), let rightEnd = right.firstIndex(of: 10) else { return false }
        guard left[(leftEnd + 1)...] == right[(rightEnd + 1)...] else { return false }
        func header(_ data: Data) -> String {
            String(decoding: data, as: UTF8.self)
                .replacingOccurrences(of: #""createdAt":"[^"]*""#, with: "", options: .regularExpression)
        }
        return header(left[..<leftEnd]) == header(right[..<rightEnd])
    }

    // MARK: - Import

    /// Measures import into an empty store against the Python reference and against its C floor, the size of the
    /// store it made against the archive's `uncompressedBytes`, and re-import of the same file.
    func importAndReimport(archive: String, uncompressedBytes: Int, changes: Int) throws {
        Log.say("Import…")
        let target = workspace.run("imported.db")
        var imported = ImportReport()
        let seconds = try Timing.median(maxRepeats: options.maxRepeats, prepare: { workspace.remove(target) }) {
            imported = try AnnotationStore.open(path: target, access: .create).importArchive(path: archive)
        }
        guard imported.newChanges == changes else {
            throw BenchError("the import took \(imported.newChanges) of \(changes) changes")
        }
        let python = workspace.run("python-imported.db")
        let pythonSeconds = try Timing.median(maxRepeats: options.maxRepeats, budget: 1,
                                              prepare: { workspace.remove(python) }) {
            try Subprocess.run([options.python, workspace.pythonReference, "import", python, archive])
        }
        let rate = { (seconds: Double) in Quantity(value: Double(changes) / seconds, unit: "changes/s") }
        report.add(Measurement(
            id: "import.vsPython", name: "import into an empty store", figure: rate(seconds), seconds: seconds,
            referenceName: "Python reference import", reference: rate(pythonSeconds), referenceSeconds: pythonSeconds,
            asSpeedup: true, target: .speedupAtLeast(3)))
        try compareState(target, python, what: "import")
        try importFloor(imported: target, importSeconds: seconds, rate: rate)
        report.add(StoreSize.measurement(
            id: "storeBytes.imported", name: "store size, imported from its archive",
            store: try StoreSize.checkpointed(target), archiveBytes: uncompressedBytes,
            archiveName: "the archive's uncompressed JSON", target: .sizeRatioAtMost(1.2)))

        Log.say("Re-import…")
        var again = ImportReport()
        let reimportSeconds = try Timing.median(maxRepeats: options.maxRepeats) {
            again = try AnnotationStore.open(path: target, access: .readWrite).importArchive(path: archive)
        }
        guard again.duplicates == changes, again.newChanges == 0 else {
            throw BenchError("the re-import found \(again.duplicates) duplicates of \(changes)")
        }
        report.add(Measurement(
            id: "reimport.vsImport", name: "re-import (all duplicates)", figure: rate(reimportSeconds),
            seconds: reimportSeconds, referenceName: "first import of the file", reference: rate(seconds),
            referenceSeconds: seconds, asSpeedup: true, target: .speedupAtLeast(3)))
        let pythonAgain = try Subprocess.run([options.python, workspace.pythonReference, "import", python, archive])
        report.add(Measurement(
            id: "reimport.vsPython", name: "re-import (all duplicates)", figure: rate(reimportSeconds),
            seconds: reimportSeconds, referenceName: "Python reference re-import",
            reference: rate(pythonAgain.seconds), referenceSeconds: pythonAgain.seconds, asSpeedup: true))
    }

    /// Measures the merge the store builder did against the Python reference merging the same file into a copy
    /// of the same store.
    func merge(_ built: StoreBuilder.Result) throws {
        Log.say("Merge (Python reference)…")
        let copy = workspace.run("python-merge.db")
        try workspace.copyStore(built.storeBeforeMerge, to: copy)
        let python = try Subprocess.run([options.python, workspace.pythonReference, "import", copy, built.mergeArchive])
        let changes = built.mergeReport.changesRead
        let rate = { (seconds: Double) in Quantity(value: Double(changes) / seconds, unit: "changes/s") }
        report.extra("merge.newChanges", built.mergeReport.newChanges)
        report.extra("merge.duplicates", built.mergeReport.duplicates)
        report.extra("merge.conflictsResolved", built.mergeReport.conflictsResolved)
        report.add(Measurement(
            id: "merge.vsPython", name: "merge (stores share half their changes)", figure: rate(built.mergeSeconds),
            seconds: built.mergeSeconds, referenceName: "Python reference merge", reference: rate(python.seconds),
            referenceSeconds: python.seconds, asSpeedup: true))
        try compareState(built.store, copy, what: "merge")
    }

    /// Checks that the Python reference reached the library's state (annotations with their clocks, positions,
    /// the log's change ids), so that the two did the same work. What is compared does not depend on numbers local
    /// to a store: the devices by id, the annotations by id without their row number, their clocks with each
    /// device number replaced by the device's id (`ClockBlob.text`).
    private func compareState(_ ours: String, _ theirs: String, what: String) throws {
        func digest(_ path: String) throws -> [String] {
            let db = try SQLiteDatabase(path: path, mode: .readOnly)
            var rows: [String] = []
            var devices: [Int64: String] = [:]
            try db.forEachRow(sql: "SELECT number, id FROM devices ORDER BY id") { row in
                devices[try row.int64(0)] = try row.string(1)
                rows.append(try row.string(1))
            }
            try db.forEachRow(sql: "SELECT \(CreatedRows.annotationColumns) FROM annotations ORDER BY id") { row in
                let clocks = row.count - 1
                guard let text = ClockBlob.text(Array(row.bytes(at: clocks)), devices: devices) else {
                    throw BenchError("annotation \(try row.string(0)) in \(path) has unreadable clocks")
                }
                rows.append(((0..<clocks).map { "\(row.value(at: $0))" } + [text]).joined(separator: "\u{1F}"))
            }
            let positions = "SELECT document, passage, offset, updated_hlc, clock FROM positions ORDER BY document"
            try db.forEachRow(sql: positions) {
                row in rows.append((0..<row.count).map { "\(row.value(at: $0))" }.joined(separator: "\u{1F}"))
            }
            try db.forEachRow(sql: "SELECT change_id, fields FROM changes ORDER BY change_id") { row in
                rows.append("\(try row.string(0)) \(try row.string(1))")
            }
            return rows
        }
        let same = try digest(ours) == digest(theirs)
        report.extra("python.\(what).sameState", same)
        if !same { report.note("the Python reference's \(what) left a different state from the library's") }
    }
}

/// The clocks blob of an annotation row (the library's `FieldClocks` format, schema 5) as text that does not
/// depend on the store's device numbers: entry by entry, its packed clock, its device's id, and the rest of the
/// entry (change id and registers) in hex.
enum ClockBlob {
    /// Nil when `blob` is not in the format or names a device `devices` lacks.
    static func text(_ blob: [UInt8], devices: [Int64: String]) -> String? {
        var index = 0
        func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while index < blob.count, shift < 64 {
                let byte = blob[index]
                index += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
            return nil
        }
        /// Steps over a varint length and that many bytes.
        func skipText() -> Bool {
            guard let length = varint(), length <= UInt64(blob.count - index) else { return false }
            index += Int(length)
            return true
        }
        var entries: [String] = []
        while index < blob.count {
            guard let hlc = varint(), let number = varint(), number <= UInt64(Int64.max),
                  let device = devices[Int64(number)], index < blob.count else { return nil }
            let rest = index
            let kind = blob[index]
            index += 1
            switch kind {
            case 0 where blob.count - index >= 16: index += 16
            case 1: guard skipText() else { return nil }
            default: return nil
            }
            guard let count = varint() else { return nil }
            for _ in 0..<count {
                guard index < blob.count else { return nil }
                let code = blob[index]
                index += 1
                if code == 0 || code == 6 { guard skipText() else { return nil } } else if code > 6 { return nil }
            }
            let hex = blob[rest..<index].map { String(format: "%02x", $0) }.joined()
            entries.append("\(hlc) \(device) \(hex)")
        }
        return entries.joined(separator: ";")
    }
}
