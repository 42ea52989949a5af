/// The layout of a sync folder: one directory per device, each written by that device alone.
///
///     FOLDER/devices/<device-id>/device.json                          the device's manifest, written once
///     FOLDER/devices/<device-id>/<first>-<last>-<nonce>.jsonl.gz      segments of the changes made on the device
///     FOLDER/devices/<device-id>/unreadable.json                      the other devices' files it could not read
///
/// A segment is gzip JSON Lines in the archive's record format: a header naming the writer and the range of its
/// log it covers, its change records, and a trailer with their count. A device's directory holds the changes made
/// on that device (and those it brought in from outside the folder, by an import, whose device has no directory
/// of its own): each change is in the folder once, and a new device catches up from every directory. Only the
/// device named by a directory writes in it: new segment files (written as `.syncthing.name….tmp`, flushed,
/// then renamed), its manifest once, its status file replaced whole; no other file is rewritten in place.
///
/// A store that encrypts in the folder (given recipients once) writes each segment as an age file whose payload is
/// those gzip bytes, the header carrying an authentication tag (`SegmentKeys`); readers tell it by its first bytes,
/// so plain and encrypted segments lie side by side. Manifests and status files stay plain: they hold device ids,
/// format versions, segment names and sizes, no note, quote or tag.
///
/// Folders of format 1 had one manifest for the folder (`marginalia-sync.json`), written by whichever device came
/// first, and every device published its whole log. Such a manifest is still read (a newer one is refused), never
/// written; the segments of format 1 read as those of today.
package enum SyncFormat {
    /// The manifests' `format`.
    package static let name = "marginalia-sync"
    /// The folder format version this build writes, and the newest it reads.
    package static let version: Int64 = 2
    /// The oldest reader version that can read a device directory this build writes.
    package static let minimumReaderVersion: Int64 = 2
    /// The folder-wide manifest of format 1, read when present.
    package static let manifestName = "marginalia-sync.json"
    /// The directory in the folder holding one directory per device.
    package static let devicesDirectory = "devices"
    /// A device's manifest, in its directory.
    static let deviceManifestName = "device.json"
    /// A device's list of the other devices' files it could not read, in its directory.
    static let statusName = "unreadable.json"
    /// The start of every temporary file a round makes in the folder. Syncthing takes names beginning so for its
    /// own temporary files and never scans or sends them ("IsTemporary", lib/fs/tempname.go); the other tools
    /// skip them by the ignore patterns the README gives.
    static let temporaryPrefix = ".syncthing."
    /// The segment header's `format`.
    static let segmentFormat = "marginalia-sync-segment"
    /// The segment format version this build writes, and the newest it reads: 2 lets a change record carry
    /// `madeAt` (archive format 3), which a reader of version 1 would refuse as an unknown field.
    static let segmentVersion: Int64 = 3
    /// How many of its own segments a store keeps before it folds them into one.
    package static let compactionThreshold = 64
    /// How long a segment stays in the folder before a compaction may fold it into another (milliseconds): the
    /// time the sync tools have to carry it to the other machines before it is replaced.
    package static let compactionGrace: Int64 = 60 * 60 * 1000
    /// How long a file that is not a segment (a sync tool's temporary or partial file, a placeholder) or a segment
    /// cut short may stay unchanged and still count as a copy in progress (seconds); older, it is a leftover.
    package static let leftoverAge: Int64 = 15 * 60
    /// The largest segment file read (compressed bytes).
    static let maxSegmentBytes: Int64 = 1 << 30
    /// The limits a segment is read with: an archive's, with no more than 4 GiB of text.
    static let segmentLimits = ArchiveLimits(maxDecompressedBytes: 4 << 30)
    /// The largest manifest or status file read.
    static let maxSmallFileBytes: Int64 = 1 << 20

    /// The name of a segment covering `first...last` of its writer's log; `nonce` keeps two copies of one store
    /// from ever writing the same name.
    static func segmentName(first: Int64, last: Int64, nonce: String) -> String {
        func padded(_ value: Int64) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, 12 - digits.count)) + digits
        }
        return "\(padded(first))-\(padded(last))-\(nonce).jsonl.gz"
    }

    /// The range of the writer's log a segment name covers, for a segment's final name (12 digits, `-`,
    /// 12 digits, `-`, 8 lowercase hex digits, `.jsonl.gz`) or a sync tool's conflict copy of one; nil for any other
    /// name.
    static func segmentRange(of name: String) -> ClosedRange<Int64>? {
        let bytes = Array(name.utf8)
        guard bytes.count >= 34, isSegmentName(name) || isConflictCopy(name) else { return nil }
        guard let first = Int64(String(decoding: bytes[0..<12], as: UTF8.self)),
              let last = Int64(String(decoding: bytes[13..<25], as: UTF8.self)), first <= last else { return nil }
        return first...last
    }

    /// Whether `name` is a segment's final name.
    static func isSegmentName(_ name: String) -> Bool {
        name.utf8.count == 12 + 1 + 12 + 1 + 8 + 9 && hasSegmentStem(name) && name.hasSuffix(".jsonl.gz")
    }

    /// Whether `name` is a sync tool's conflict copy of a segment (Syncthing's `….sync-conflict-…`, Dropbox's
    /// `… (conflicted copy …)`): the same immutable bytes under another name, read like the segment itself
    /// (merging is idempotent and each change is checked).
    static func isConflictCopy(_ name: String) -> Bool {
        !isSegmentName(name) && hasSegmentStem(name) && name.lowercased().contains("conflict")
            && name.hasSuffix(".gz")
    }

    private static func hasSegmentStem(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count >= 34 else { return false }
        func digits(_ range: Range<Int>) -> Bool { bytes[range].allSatisfy { $0 >= 48 && $0 <= 57 } }
        let hex = bytes[26..<34].allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
        return digits(0..<12) && bytes[12] == 45 && digits(13..<25) && bytes[25] == 45 && hex
    }

    /// Why a file in a device directory that is not a segment is not read while it may still be changing: what a
    /// sync tool or another program is doing there.
    static func pendingReason(forName name: String) -> String {
        if name.hasSuffix(".icloud") { return "an iCloud placeholder: the file is not downloaded yet" }
        if name.hasPrefix(".syncthing.") || name.hasPrefix("~syncthing~") {
            return "a Syncthing temporary file: a copy in progress"
        }
        if name.hasPrefix(".") || name.hasSuffix(".tmp") || name.hasSuffix(".part") || name.hasSuffix(".partial") {
            return "a temporary file: a write or copy in progress"
        }
        return "not a segment file name"
    }

    /// Why such a file, unchanged for longer than `leftoverAge`, is left alone: what it is, and what to do.
    static func leftoverReason(forName name: String) -> String {
        if name.hasSuffix(".icloud") {
            return "an iCloud placeholder not downloaded for a long time: keep the folder downloaded on this Mac"
        }
        if pendingReason(forName: name) == "not a segment file name" {
            return "not a file of marginalia's: left alone"
        }
        return "left by a sync tool or an interrupted copy, unchanged for a long time: safe to delete"
    }
}
