import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a Markdown export into a folder did.
public struct MarkdownFolderReport: Equatable, Sendable {
    /// Files written (new, or whose annotations changed), by name.
    public var written: [String] = []
    /// Files whose annotations had not changed: not touched.
    public var unchanged: [String] = []
    /// Files of a document's name that hold no section of Marginalia's: left as they were.
    public var leftAlone: [String] = []
    /// Annotations in the files.
    public var annotations = 0
}
