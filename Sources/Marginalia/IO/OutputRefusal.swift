import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a file will not be written over: what it is, and what to do instead.
package struct OutputRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// The path as given.
    package var path: String
    /// The real file it leads to, when that differs (through symbolic links).
    package var resolved: String?
    /// What the file is, e.g. "a Marginalia store".
    package var what: String
    /// What would let the write go ahead, if anything can: a fact for the caller to word as advice.
    package var remedy: Remedy?

    /// What would let a refused write go ahead.
    package enum Remedy: Equatable, Sendable {
        /// The path names a directory: a file inside it must be named.
        case nameAFile
        /// The path is a pipe or a device: a stream of the bytes goes to standard output instead.
        case streamInstead
        /// Forcing the write replaces the file (`force: true`).
        case force
        /// Forcing the write rebuilds the content database there (`force: true`).
        case forceRebuild
        /// Nothing: the output must go to another file.
        case anotherFile
        /// The file changed while the new one was written; nothing was replaced, and trying again may work.
        case changedMeanwhile
    }

    /// A refusal of `requested`, naming the real file `path` too when links lead elsewhere.
    init(_ requested: String, _ path: String, what: String, remedy: Remedy?) {
        let plain = (OutputTarget.absolute(requested) as NSString).standardizingPath
        self.init(path: requested, resolved: plain == path ? nil : path, what: what, remedy: remedy)
    }

    /// A refusal of `path` (leading to `resolved`, when links lead elsewhere), which is `what`.
    package init(path: String, resolved: String? = nil, what: String, remedy: Remedy? = nil) {
        self.path = path
        self.resolved = resolved
        self.what = what
        self.remedy = remedy
    }

    /// The refusal in words: the path, what it leads to and what it is.
    package var description: String {
        let via = resolved.map { " (which leads to \($0))" } ?? ""
        let changed = remedy == .changedMeanwhile ? "; it changed while being written; nothing was replaced" : ""
        return "will not write over \(path)\(via): it is \(what)" + changed
    }
}
