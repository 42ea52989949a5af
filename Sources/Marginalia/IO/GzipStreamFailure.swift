/// A failure met while reading a gzip stream, as a reader of another format than the archive's (a sync segment)
/// needs it: whether the stream ended early, the line when one was too long, and what is wrong in words.
package struct GzipStreamFailure: Sendable {
    /// The stream ends before its end (an empty file, or one cut short): it may still be being written.
    package var cutShort: Bool
    /// The 1-based line of the decompressed text that was too long, when that is the failure.
    package var line: Int?
    package var reason: String
}

extension GzipReader {
    /// `error` as a `GzipStreamFailure` when it is one of the reader's; nil for any other error.
    package static func failure(of error: any Error) -> GzipStreamFailure? {
        guard let error = error as? GzipError else { return nil }
        switch error {
        case .emptyFile: return GzipStreamFailure(cutShort: true, reason: "empty: a copy in progress")
        case .truncated: return GzipStreamFailure(cutShort: true, reason: error.description)
        case .lineTooLong(let line, let limit):
            return GzipStreamFailure(cutShort: false, line: line, reason: "the line is longer than \(limit) bytes")
        default: return GzipStreamFailure(cutShort: false, reason: error.description)
        }
    }
}
