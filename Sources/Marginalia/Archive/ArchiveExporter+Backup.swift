import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ArchiveExporter {
    /// Writes a verified backup of the store to `path`.
    ///
    /// The archive is written to a temporary file beside `path`, flushed to disk, read back and verified
    /// completely (inflated, every record checked, the state rebuilt from its changes compared with the
    /// archive's state records and with the live store), and only then renamed over `path`. An existing
    /// file at `path` is replaced only by a verified backup.
    ///
    /// With `encryption`, the archive is written and verified in a private directory among the system's temporary
    /// files, never beside `path` (a plain copy must not reach the disk the backup goes to), and then encrypted,
    /// as an age file, into the temporary file beside `path`.
    func backup(to path: String, limits: ArchiveLimits = ArchiveLimits(), encryption: AgeKey? = nil) throws
        -> BackupReport
    {
        let target = try OutputTarget.resolve(path, policy: store.outputPolicy(replaceArchive: true))
        var written: String?
        do {
            return try target.write(purpose: "backup") { temporary in
                try db.transaction(.deferred) {
                    let scratch = try ScratchStore(beside: encryption == nil ? target.path : ScratchStore.privatePlace)
                    let plain = encryption == nil ? temporary.path : scratch.directory.path + "/backup.jsonl.gz"
                    written = plain
                    let sink = encryption == nil
                        ? FileSink(fileDescriptor: try temporary.openForWriting(), name: temporary.path,
                                   closesOnDeinit: true)
                        : try FileSink(path: plain, exclusive: true, permissions: 0o600)
                    defer { try? sink.close() }
                    let counts = try exportArchive(to: sink)
                    try sink.sync()
                    let verification = try scratch.store.db.transaction(.immediate) {
                        try ArchiveImporter(store: scratch.store).mergeArchive(
                            path: plain, limits: limits, checkState: true, comparingWith: store, receipt: .restore
                        ).verification
                    }
                    var bytes = verification.summary.compressedBytes
                    if let encryption {
                        bytes = try Self.encrypt(plain, to: encryption, into: temporary)
                    }
                    return BackupReport(path: path, counts: counts, compressedBytes: bytes)
                }
            }
        } catch let archiveError as ArchiveError where archiveError.file == written {
            // Name the backup, not its temporary file: the backup failed its own verification.
            throw ArchiveError(
                file: path, line: archiveError.line, kind: archiveError.kind,
                reason: "the backup failed verification, nothing was replaced: \(archiveError.reason)")
        }
    }

    /// Encrypts the file at `plain` into `temporary` as an age file; returns the bytes written.
    private static func encrypt(_ plain: String, to key: AgeKey, into temporary: TemporaryFile) throws -> UInt64 {
        let file = FileSink(fileDescriptor: try temporary.openForWriting(), name: temporary.path, closesOnDeinit: true)
        defer { try? file.close() }
        let counted = CountingSink(file)
        let age = try AgeEncryptingSink(to: key, sink: counted)
        let source = try FileSource(path: plain)
        defer { try? source.close() }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
            if count == 0 { break }
            try buffer.withUnsafeBytes { try age.write(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
        try age.finish()
        try file.sync()
        return counted.count
    }
}

/// A `ByteSink` that counts the bytes it passes on to `base`.
private final class CountingSink: ByteSink {
    private let base: any ByteSink
    private(set) var count: UInt64 = 0

    init(_ base: any ByteSink) {
        self.base = base
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        try base.write(bytes)
        count += UInt64(bytes.count)
    }
}
