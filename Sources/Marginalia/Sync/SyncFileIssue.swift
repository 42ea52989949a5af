/// A file a round did not apply (pending, damaged, left over), or changes it refused, and why.
public struct SyncFileIssue: Equatable, Sendable, CustomStringConvertible {
    /// Its path inside the folder: `devices/<id>/<name>`.
    public var path: String
    /// The 1-based line of the decompressed text, for a bad record.
    public var line: Int?
    /// What is wrong with the file, in words.
    public var reason: String

    /// The issue in words: the path, the line when there is one, and the reason.
    public var description: String {
        if let line { return "\(path): line \(line): \(reason)" }
        return "\(path): \(reason)"
    }
}
