import CSQLite
import Foundation
import Marginalia

/// What a store takes on disk per annotation, against the uncompressed JSON of an archive of it: the store's main
/// file once its write-ahead log has been checkpointed into it and emptied.
enum StoreSize {
    /// A store's main file, checkpointed, and the annotations (deleted ones too) it holds.
    struct Figure {
        var bytes: Int
        var annotations: Int
    }

    /// Checkpoints the store at `path` and truncates its WAL, then reads its main file's size.
    ///
    /// "TRUNCATE: This mode works the same way as RESTART with the addition that it also truncates the log file to
    /// zero bytes just prior to a successful return." "The wal_checkpoint pragma returns a single row with three
    /// integer columns. The first column is usually 0 but will be 1 if a RESTART or FULL or TRUNCATE checkpoint was
    /// blocked from completing" https://www.sqlite.org/pragma.html#pragma_wal_checkpoint
    ///
    /// - Throws: when the checkpoint is blocked (another connection reading) or leaves a WAL that is not empty.
    static func checkpointed(_ path: String) throws -> Figure {
        let db = try CConnection(path: path)
        let checkpoint = try db.prepare("PRAGMA wal_checkpoint(TRUNCATE)")
        defer { sqlite3_finalize(checkpoint) }
        try db.check(sqlite3_step(checkpoint), "PRAGMA wal_checkpoint(TRUNCATE)")
        guard sqlite3_column_int64(checkpoint, 0) == 0 else {
            throw BenchError("the checkpoint of \(path) was blocked: another connection is reading it")
        }
        let count = try db.prepare("SELECT count(*) FROM annotations")
        defer { sqlite3_finalize(count) }
        try db.check(sqlite3_step(count), "SELECT count(*) FROM annotations")
        let annotations = Int(sqlite3_column_int64(count, 0))
        let wal = fileSize(path + "-wal") ?? 0
        guard wal == 0 else { throw BenchError("\(path)-wal holds \(wal) bytes after a TRUNCATE checkpoint") }
        guard let bytes = fileSize(path), annotations > 0 else {
            throw BenchError("\(path) has no annotations to measure its size by")
        }
        return Figure(bytes: bytes, annotations: annotations)
    }

    /// The row of the results: bytes per annotation, the store's against the archive's uncompressed bytes.
    static func measurement(id: String, name: String, store: Figure, archiveBytes: Int, archiveName: String,
                            target: Target?) -> Measurement {
        let count = Double(store.annotations)
        return Measurement(
            id: id, name: "\(name) (\(Report.grouped(count)) annotations)",
            figure: Quantity(value: Double(store.bytes) / count, unit: "bytes/annotation"),
            referenceName: archiveName, reference: Quantity(value: Double(archiveBytes) / count, unit: "bytes/annotation"),
            target: target, bytes: Double(store.bytes), referenceBytes: Double(archiveBytes))
    }

    private static func fileSize(_ path: String) -> Int? {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue
    }
}
