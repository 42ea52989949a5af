import Foundation

/// What a complete check of an archive found.
public struct ArchiveVerification: Equatable, Sendable {
    public var summary: ArchiveSummary
    /// State records found equal to the state rebuilt from the archive's changes.
    public var annotationsChecked = 0
    public var positionsChecked = 0

    public init(summary: ArchiveSummary) {
        self.summary = summary
    }
}

/// Checks archives completely: every byte inflated and its CRC and length checked, every record validated, the
/// trailer's counts matched, and (for a full archive) the state records equal to the state rebuilt by
/// replaying the archive's changes into a scratch store.
public enum ArchiveVerifier {
    /// Verifies the archive at `path` without touching any store.
    public static func verify(path: String, limits: ArchiveLimits = ArchiveLimits()) throws -> ArchiveVerification {
        let scratch = try ScratchStore()
        return try rebuild(archive: path, into: scratch.store, comparingWith: nil, limits: limits)
    }

    /// Replays the archive's changes into `store` (an empty store) and checks its state records against the
    /// result, and against `live` when given. Commits to `store` only when everything holds.
    static func rebuild(archive path: String, into store: AnnotationStore, comparingWith live: AnnotationStore?,
                        limits: ArchiveLimits) throws -> ArchiveVerification {
        var report = ImportReport()
        var partial = false
        var annotationsChecked = 0
        var positionsChecked = 0
        let reader = ArchiveReader(path: path, limits: limits, now: store.clock.wallClockFunction)
        func mismatch(_ line: Int?, _ reason: String) -> ArchiveError {
            ArchiveError(file: path, line: line, kind: .mismatch, reason: reason)
        }
        let summary = try store.db.transaction(.immediate) {
            let summary = try reader.read { record, line in
                switch record {
                case .header(let header):
                    partial = header.partial
                case .change(let change):
                    _ = try store.merge(change, line: line, file: path, into: &report)
                case .annotation(let object):
                    guard !partial, case .string(let id)? = object["id"] else { return }
                    guard let rebuilt = try store.loadRegisters(id: id)?.annotation else {
                        throw mismatch(line, "annotation \(id) has a state record but its changes do not create it")
                    }
                    guard ArchiveFormat.record(rebuilt) == .object(object) else {
                        throw mismatch(line, "the state record of annotation \(id) differs from the replay "
                            + "of its changes")
                    }
                    if let live,
                       try live.loadRegisters(id: id)?.annotation.map(ArchiveFormat.record) != .object(object) {
                        throw mismatch(line, "the state record of annotation \(id) differs from the live store")
                    }
                    annotationsChecked += 1
                case .position(let object):
                    guard !partial, case .string(let document)? = object["document"] else { return }
                    guard try store.position(document: document).map(ArchiveFormat.record) == .object(object) else {
                        throw mismatch(line, "the reading position of \(document) differs from the replay "
                            + "of its changes")
                    }
                    if let live, try live.position(document: document).map(ArchiveFormat.record) != .object(object) {
                        throw mismatch(line, "the reading position of \(document) differs from the live store")
                    }
                    positionsChecked += 1
                }
            }
            guard !partial else { return summary }
            let rebuiltCounts = try store.annotationCounts()
            guard rebuiltCounts.live + rebuiltCounts.deleted == summary.counts.annotations,
                  try store.positions().count == summary.counts.positions else {
                throw mismatch(nil, "the changes rebuild \(rebuiltCounts.live + rebuiltCounts.deleted) annotations, "
                    + "but the archive's state holds \(summary.counts.annotations)")
            }
            if let live {
                let liveCounts = try live.annotationCounts()
                guard liveCounts.live + liveCounts.deleted == summary.counts.annotations,
                      try live.changeCount() == summary.counts.changes else {
                    throw mismatch(nil, "the archive holds \(summary.counts.changes) changes and "
                        + "\(summary.counts.annotations) annotations, the live store \(try live.changeCount()) and "
                        + "\(liveCounts.live + liveCounts.deleted)")
                }
            }
            return summary
        }
        var verification = ArchiveVerification(summary: summary)
        verification.annotationsChecked = annotationsChecked
        verification.positionsChecked = positionsChecked
        return verification
    }
}

/// An empty store in a temporary file, removed when released.
final class ScratchStore {
    let directory: URL
    let store: AnnotationStore

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("marginalia-\(Identifiers.make())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try AnnotationStore.open(path: directory.appendingPathComponent("scratch.db").path, access: .create)
        // A scratch store is thrown away: durability would only slow the check down.
        try store.db.executeScript(sql: "PRAGMA synchronous = OFF")
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }
}
