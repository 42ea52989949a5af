import Foundation

/// An error of a file format or transport (the archive, a sync folder, an interop format) that says which
/// `MarginaliaError.Category` it falls in and which facts it names, so that the store's error can carry it without
/// naming its type.
package protocol CategorizedError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is, and so what a caller can do about it.
    var category: MarginaliaError.Category { get }
    /// The POSIX error number behind it, when a system call failed.
    var errno: Int32? { get }
    /// The file, line, field and id it names.
    var facts: ErrorFacts { get }
    /// Whether `other` is the same error (of the same type, equal).
    func isSame(as other: any CategorizedError) -> Bool
}
