#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why an archive was refused or could not be written; names the file, and the line when there is one.
package struct ArchiveError: CategorizedError, Equatable {
    /// What kind of problem it is.
    package enum Kind: Equatable, Sendable {
        /// The file could not be read or written (missing, permissions, disk full).
        case io
        /// The bytes are not an intact gzip stream, or not an archive at all.
        case corrupt
        /// The file ends early: the compressed stream, the last line or the trailer is missing.
        case truncated
        /// The archive was made by a newer version of marginalia.
        case newerVersion
        /// A line is not a valid record, or records are out of order.
        case invalidRecord
        /// A change contradicts one the store (or the file) already holds under the same id.
        case conflict
        /// A size limit was reached (decompressed bytes, one line, number of records).
        case tooLarge
        /// The archive's state records do not match the state rebuilt from its changes (or the live store).
        case mismatch
        /// The file is encrypted, and no key was given or none given opens it.
        case key
    }

    /// The archive's path, as given.
    package var file: String
    /// The 1-based line of the decompressed text, when the problem is in one line.
    package var line: Int?
    /// What kind of problem it is.
    package var kind: Kind
    /// What is wrong, in words.
    package var reason: String
    /// The `errno` of a failed system call, for an `.io` error.
    package var code: Int32?

    /// A refusal of `file` (at `line`, when the problem is in one line).
    package init(file: String, line: Int? = nil, kind: Kind, reason: String) {
        self.file = file
        self.line = line
        self.kind = kind
        self.reason = reason
    }

    /// The file could not be read or written: `error` says which call failed and why.
    package init(file: String, io error: IOError) {
        self.init(file: file, kind: .io, reason: error.description)
        code = error.code
    }

    /// What kind of failure this is for the store's error.
    package var category: MarginaliaError.Category {
        switch kind {
        case .io: return code == ENOSPC || code == EDQUOT ? .diskFull : .io
        case .newerVersion: return .newerVersion
        case .key: return .invalidArgument
        case .corrupt, .truncated, .invalidRecord, .conflict, .tooLarge, .mismatch: return .invalidData
        }
    }

    /// The `errno` of a failed system call.
    package var errno: Int32? { code }

    /// The file and line refused.
    package var facts: ErrorFacts { ErrorFacts(file: file, line: line) }

    /// The refusal in words: the file, the line when there is one, and the reason.
    package var description: String {
        if let line { return "\(file): line \(line): \(reason)" }
        return "\(file): \(reason)"
    }
}
