/// How an archive's changes reach the store: chosen once, before the first record, by the caller that knows the
/// store and the file. It is the one thing the general path and the bulk load into an empty store differ by.
enum ArchiveMergePlan {
    /// Change by change, in batches, each applied to the current tables as it is merged. `known` of the file's
    /// changes are in the log already (`markKnownChanges`): they are counted as duplicates, and not handed.
    case incremental(known: Int)
    /// Into a store whose log and tables are empty: the changes go into the log in batches, and the whole log is
    /// projected once, when the last one is in (`projectWholeLog`), so that each row is written once, in key order.
    /// Each annotation's rebuilt state record is kept in the table `rebuiltRecords`, when one is given and the
    /// state is checked, for the records to skip those of the same text (`replayStaged`).
    case projectOnce(rebuiltRecords: String?)
    /// The bulk load into an empty store: the file's changes are in the log already (`fillLog(from:receipt:)`),
    /// the records hand only the header and the state records, and the log is projected as soon as the header is
    /// in, keeping the rebuilt state records as `projectOnce` does.
    case bulkLoad(FilledLog, rebuiltRecords: String?)

    /// The changes in the log before the records are handed, and how many of them are new.
    var alreadyMerged: (read: Int, new: Int) {
        switch self {
        case .incremental(let known): return (known, 0)
        case .projectOnce: return (0, 0)
        case .bulkLoad(let filled, _): return (filled.count, filled.count)
        }
    }

    /// Whether the whole log is projected once instead of change by change.
    var projectsOnce: Bool {
        if case .incremental = self { return false }
        return true
    }

    /// The table the rebuilt state records go to, if any.
    var rebuiltRecords: String? {
        switch self {
        case .incremental: return nil
        case .projectOnce(let table), .bulkLoad(_, let table): return table
        }
    }
}
