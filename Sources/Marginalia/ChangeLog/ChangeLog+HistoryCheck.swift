// MARK: - Verifying the log against a head kept elsewhere

extension ChangeLog {
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
