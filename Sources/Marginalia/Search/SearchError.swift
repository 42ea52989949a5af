/// Why a search could not run.
package enum SearchError: Error, Equatable, Sendable, CustomStringConvertible {
    case malformedQuery(String, reason: String)

    /// The problem with the query in words.
    package var description: String {
        switch self {
        case .malformedQuery(let query, let reason):
            return "cannot search for '\(query)': \(reason)"
        }
    }
}
