// MARK: - Verifying the log against a head kept elsewhere

extension StoreConnection {
    /// Checks that the log's history up to `head` (the head an archive's header carries) is still the one it was:
    /// the chain recomputed over the rows up to `head.sequence` must end there with `head.digest`. Returns the
    /// problems, none when it holds.
    ///
    /// This catches what the chain alone cannot: the newest changes removed, or every digest after a rewrite
    /// recomputed, since the archive was written. Changes made after it are not covered.
    func checkHistory(against head: LogHead, file: String) throws -> [String] {
        guard head.sequence > 0 else { return [] }
        let chain = try recomputeChain(through: head.sequence)
        guard chain.head.sequence == head.sequence else {
            return ["changes: \(file) holds the history up to seq \(head.sequence), but the log ends at seq "
                + "\(chain.head.sequence): changes were removed since it was written"]
        }
        guard chain.head.digest == head.digest else {
            return ["changes: the history up to seq \(head.sequence) differs from the one \(file) holds (its digest "
                + "\(head.digest), the log's \(chain.head.digest)): a change up to there was rewritten, removed, "
                + "added or reordered since it was written"]
        }
        return []
    }
}

extension AnnotationStore {
    /// Checks the store as `verify()` does, and that its history up to the head `archive`'s header carries (a
    /// backup's, an export's) is unchanged since the archive was written.
    ///
    ///     let report = try store.verify(against: "backup.jsonl.gz")
    ///     report.isHealthy  // false if any change up to the backup's head was rewritten, removed or reordered
    /// - Throws: `ArchiveError` when the archive cannot be read whole, or is of format 1 (which carries no head).
    public func verify(against archive: String) throws -> VerificationReport {
        let head: LogHead
        do {
            let header = try ArchiveReader(path: archive).read().header
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
        return try engine.read { store in
            var report = try store.verify()
            report.problems += try store.checkHistory(against: head, file: archive)
            report.against = head
            return report
        }
    }
}
