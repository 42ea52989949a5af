/// Why a gzip stream could not be written, or was refused when read.
///
/// Reading refuses anything that is not exactly one complete, intact gzip member: each case names what the user
/// handed over, so the message can tell them what went wrong.
package enum GzipError: CategorizedError, Equatable {
    /// The file holds no bytes at all.
    case emptyFile
    /// The file starts with the SQLite header: the user picked a database instead of an archive.
    case sqliteDatabase
    /// The file starts with a zip signature.
    case zipArchive
    /// The file starts with `{` or `[`: JSON that was never compressed.
    case uncompressedJSON
    /// The file does not start with the gzip magic bytes and is nothing else we recognise.
    case notGzip
    /// zlib refused the compressed stream; the payload is zlib's own message.
    case corruptData(String)
    /// The CRC-32 in the gzip trailer does not match the decompressed bytes.
    case checksumMismatch
    /// The length (ISIZE) in the gzip trailer does not match the decompressed byte count.
    case lengthMismatch
    /// The input ends before the end of the gzip member, its trailer included.
    case truncated
    /// Bytes follow the end of the gzip member.
    case trailingData
    /// A second gzip member follows the first; archives hold exactly one.
    case secondMember
    /// Decompressing would produce more than `limit` bytes.
    case sizeLimitExceeded(limit: UInt64)
    /// Line `line` (1-based) of the decompressed text is longer than `limit` bytes.
    case lineTooLong(line: Int, limit: Int)
    /// zlib failed in a way that is not about the input (out of memory, bad parameters).
    case zlib(function: String, code: Int32, message: String)
    /// The writer or reader was used after it finished, failed or was closed.
    case alreadyFinished

    /// The problem in words.
    package var description: String {
        switch self {
        case .emptyFile:
            return "empty file"
        case .sqliteDatabase:
            return "this is an SQLite database, not an archive"
        case .zipArchive:
            return "this is a zip file, not an archive: archives are gzip-compressed"
        case .uncompressedJSON:
            return "uncompressed JSON: archives are gzip-compressed"
        case .notGzip:
            return "not a gzip file"
        case .corruptData(let message):
            return "corrupt compressed data: \(message)"
        case .checksumMismatch:
            return "corrupt archive: the CRC-32 in the gzip trailer does not match the data (incorrect data check)"
        case .lengthMismatch:
            return "corrupt archive: the length in the gzip trailer does not match the data (incorrect length check)"
        case .truncated:
            return "truncated: the file ends before the end of the compressed stream"
        case .trailingData:
            return "trailing data after the end of the compressed stream"
        case .secondMember:
            return "trailing data after the end of the compressed stream: a second gzip member"
        case .sizeLimitExceeded(let limit):
            return "decompressed size exceeds \(limit) bytes"
        case .lineTooLong(let line, let limit):
            return "line \(line) is longer than \(limit) bytes"
        case .zlib(let function, let code, let message):
            return "zlib \(function) failed (\(code)): \(message)"
        case .alreadyFinished:
            return "the gzip stream was already finished, failed or closed"
        }
    }

    /// What kind of failure this is for the store's error: the input's fault, but for a misused stream.
    package var category: MarginaliaError.Category {
        switch self {
        case .alreadyFinished: return .io
        default: return .invalidData
        }
    }
}
