/// Why content could not be built or attached; each case names the file and what is wrong with it.
package enum ContentError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The content file does not exist (nothing was created in its place).
    case missing(path: String)
    /// The file exists but is not a usable content database.
    case notContent(path: String, reason: String)
    /// The content database was built by a newer version of marginalia.
    case newerSchema(path: String, found: Int32, supported: Int32)
    /// What was read from the content database contradicts itself: the file changed while it was being read, or
    /// it is damaged. Nothing was written.
    case inconsistent(path: String, reason: String)
    /// A content source file could not be read.
    case unreadable(path: String, reason: String)
    /// A content source file is not valid JSON.
    case invalidJSON(path: String, line: Int, column: Int, reason: String)
    /// A content source is valid JSON but not a valid source: `location` names the document or passage.
    case invalidSource(path: String, location: String, reason: String)

    /// The problem in words, naming the file and what is wrong in it.
    package var description: String {
        switch self {
        case .missing(let path):
            return "content file \(path) does not exist"
        case .notContent(let path, let reason):
            return "\(path) is not a Marginalia content database: \(reason)"
        case .newerSchema(let path, let found, let supported):
            return "\(path) was built by a newer version of marginalia (content schema \(found); this version "
                + "reads up to \(supported))"
        case .inconsistent(let path, let reason):
            return "\(path) changed while it was being read, or is damaged (\(reason)); nothing was written"
        case .unreadable(let path, let reason):
            return "cannot read \(path): \(reason)"
        case .invalidJSON(let path, let line, let column, let reason):
            return "\(path):\(line):\(column): invalid JSON: \(reason)"
        case .invalidSource(let path, let location, let reason):
            return location.isEmpty ? "\(path): \(reason)" : "\(path): \(location): \(reason)"
        }
    }
}

extension ContentError {
    /// The file (and line) the refusal names.
    package var facts: ErrorFacts {
        switch self {
        case .missing(let path), .notContent(let path, _), .newerSchema(let path, _, _), .inconsistent(let path, _),
             .unreadable(let path, _), .invalidSource(let path, _, _):
            return ErrorFacts(file: path)
        case .invalidJSON(let path, let line, _, _):
            return ErrorFacts(file: path, line: line)
        }
    }
}
