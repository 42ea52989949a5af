/// Why an archive was refused or could not be written; names the file, and the line when there is one.
public struct ArchiveError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What kind of problem it is.
    public enum Kind: Equatable, Sendable {
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
    }

    /// The archive's path, as given.
    public var file: String
    /// The 1-based line of the decompressed text, when the problem is in one line.
    public var line: Int?
    /// What kind of problem it is.
    public var kind: Kind
    /// What is wrong, in words.
    public var reason: String

    /// A refusal of `file` (at `line`, when the problem is in one line).
    package init(file: String, line: Int? = nil, kind: Kind, reason: String) {
        self.file = file
        self.line = line
        self.kind = kind
        self.reason = reason
    }

    /// The refusal in words: the file, the line when there is one, and the reason.
    public var description: String {
        if let line { return "\(file): line \(line): \(reason)" }
        return "\(file): \(reason)"
    }
}
