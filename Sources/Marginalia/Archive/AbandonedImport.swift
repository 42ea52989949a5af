#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An archive import stopped midway that opening the store could not finish, because the copy of the archive kept
/// beside the store (`STORE-import-ID`) was not the file the import kept: its record was removed, and nothing of
/// the copy was merged. What its committed steps merged stays in the store (each change was checked when it was
/// merged); importing the archive again merges the rest and finds the others there.
public struct AbandonedImport: Equatable, Sendable, CustomStringConvertible {
    /// What was wrong with the kept copy.
    public enum Problem: Equatable, Sendable {
        /// No file of that name is there.
        case missing
        /// Something other than a regular file is there (named: "a directory", "a FIFO (named pipe)", …); it is
        /// left as it is and was never opened for reading.
        case notARegularFile(String)
        /// Its size or SHA-256 differs from those recorded when it was kept.
        case changed
        /// An earlier version began the import and recorded no SHA-256 of the copy to check it against.
        case unrecorded
        /// It could not be read (the `errno`).
        case unreadable(Int32)
    }

    /// The archive, as it was named to the import.
    public var archive: String
    /// The kept copy's path.
    public var copy: String
    /// What was wrong with it.
    public var problem: Problem
    /// How many of the archive's changes the committed steps had read (merged, or found already in the store).
    public var changesRead: Int
    /// How many changes the archive holds; nil for an import an earlier version began.
    public var total: Int?

    /// What was wrong with the copy, in words: "was changed since the import began", "is missing", ….
    public var problemDescription: String {
        switch problem {
        case .missing: "is missing"
        case .notARegularFile(let kind): "is not a regular file but \(kind)"
        case .changed: "was changed since the import began"
        case .unrecorded: "cannot be checked (an earlier version began the import and recorded no SHA-256 of it)"
        case .unreadable(let code): "cannot be read (\(String(cString: strerror(code))))"
        }
    }

    /// The facts: "the import of FILE was abandoned: the kept copy PATH is missing; 2600 of its 8000 changes are
    /// in the store".
    public var description: String {
        "the import of \(archive) was abandoned: the kept copy \(copy) \(problemDescription); "
            + "\(changesRead) of its \(total.map { "\($0) " } ?? "")changes are in the store"
    }
}
