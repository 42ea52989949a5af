import Foundation
import Marginalia

/// How the tool answers a failed command: its exit status, from one table keyed by `MarginaliaError.Category`.
///
/// Every error a command meets is classified as one `MarginaliaError` first (the library's own, and the tool's
/// `InputError` and `InputFileError`, which say their category as the library's errors do), so that the status
/// follows what kind of failure it is, never which part raised it. Answered before the table, each with its own
/// words: a usage error (64), a store held busy by another process (75), a remote that failed (`RemoteError`,
/// its own statuses) and output that could not be written to stdout (74).
enum ErrorTable {
    /// The exit status of a command that failed with `error` (sysexits.h where one fits).
    static func status(for error: any Error) -> Int32 {
        if let remote = error as? RemoteError { return remote.kind.exitStatus }
        let error = MarginaliaError(error)
        // `export -` streams to a sink named stdout: its output failed, as Console's does.
        if error.category == .io || error.category == .diskFull, error.file == "stdout" { return 74 }
        return status(for: error.category)
    }

    /// The row of `category`: 65 when the input does not fit (a file handed over, or a value typed: an id, an
    /// anchor, a key, a field), 75 when the store was busy, 1 for the rest.
    static func status(for category: MarginaliaError.Category) -> Int32 {
        switch category {
        case .invalidArgument, .invalidData, .newerVersion, .corruptStore:
            return 65  // EX_DATAERR
        case .busy:
            return 75  // EX_TEMPFAIL
        case .notFound, .contentUnavailable, .diskFull, .io, .closed, .cancelled, .refused:
            return 1
        }
    }
}
