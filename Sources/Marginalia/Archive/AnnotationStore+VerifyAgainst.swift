extension AnnotationStore {
    /// Checks the store as `verify()` does, and that its history up to the head `archive`'s header carries (a
    /// backup's, an export's) is unchanged since the archive was written.
    ///
    ///     let report = try store.verify(against: "backup.jsonl.gz")
    ///     report.isHealthy  // false if any change up to the backup's head was rewritten, removed or reordered
    /// - Throws: `MarginaliaError` (`.invalidData`, naming the file and line) when the archive cannot be read
    ///   whole, or is of format 1 (which carries no head).
    /// - Parameter key: the identities or passphrase that open `archive` when it is encrypted.
    public func verify(against archive: String, key: AgeKey? = nil) throws -> VerificationReport {
        let head: LogHead
        do {
            var limits = ArchiveLimits()
            limits.key = key
            let header = try ArchiveReader(path: archive, limits: limits).read().header
            guard let found = header.head else {
                throw ArchiveError(
                    file: archive, line: 1, kind: .invalidRecord,
                    reason: "it is an archive of format \(header.formatVersion), whose header carries no head of the "
                        + "log to verify against (format \(ArchiveFormat.headVersion) on does)")
            }
            head = found
        } catch {
            throw MarginaliaError(error)
        }
        return try engine.reading { store in
            var report = try store.verifier.verify()
            report.problems += try store.log.checkHistory(against: head, file: archive)
            report.against = head
            return report
        }
    }
}
