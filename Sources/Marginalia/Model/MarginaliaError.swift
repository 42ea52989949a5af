import Foundation

/// Every error the library's public API throws: a category an app can act on, the facts it names (the file and
/// line, the field, the id at fault, the `errno`) and the failure in words. The words state what is wrong, never
/// what a command-line user should type about it.
///
///     do {
///         try store.createAnnotation(.highlight, at: AnchorRequest(passage: "NO.SUCH"))
///     } catch let error as MarginaliaError where error.category == .invalidArgument {
///         showAlert(error.localizedDescription)    // "no passage NO.SUCH in the attached content"
///         log(error.id)                            // "NO.SUCH"
///     }
public struct MarginaliaError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
    /// What kind of failure this is, and so what a caller can do about it.
    public enum Category: String, Sendable, CaseIterable {
        /// The caller asked for something that cannot be done as asked (a bad id, range, option or value).
        case invalidArgument
        /// A file handed to the store (an archive, a content source) is malformed, damaged or inconsistent.
        case invalidData
        /// The store, an annotation or another named thing does not exist.
        case notFound
        /// A store, archive or content file was written by a newer version; it was left untouched.
        case newerVersion
        /// The store's own data is damaged: never the caller's mistake.
        case corruptStore
        /// The content database is missing, unreadable or not content.
        case contentUnavailable
        /// The disk (or a quota) is full; nothing was written.
        case diskFull
        /// Reading or writing a file failed; `errno` says why when known.
        case io
        /// Another connection or process held the store for longer than the store waits.
        case busy
        /// The store was closed before this call.
        case closed
        /// The work was cancelled (by its progress handler or its task); nothing was written.
        case cancelled
        /// The work would do something that must be allowed first (delete most of the notes, replace a file) or is
        /// never done (write over the store itself); nothing was written.
        case refused
    }

    /// The specific failure, as the part of the library that raised it named it.
    package enum Reason: Equatable, Sendable {
        case store(StoreError)
        case content(ContentError)
        case field(FieldError)
        case database(SQLiteError)
        /// A system call on a file failed.
        case io(IOError)
        case reanchor(ReanchorError)
        case search(SearchError)
        case output(OutputRefusal)
        /// A file format or transport refused its input or failed: an archive, its gzip stream, a restore, a sync
        /// folder, an interop file. Each says its own category.
        case format(any CategorizedError)
        /// The store was closed.
        case closed
        /// The work was cancelled.
        case cancelled
        /// Any other failure, in words.
        case other(String)
    }

    /// What kind of failure this is.
    public let category: Category
    /// The specific failure.
    package let reason: Reason

    /// An error of `category` for `reason`.
    package init(category: Category, reason: Reason) {
        self.category = category
        self.reason = reason
    }

    /// The POSIX error number of an I/O failure, when one caused it.
    public var errno: Int32? {
        switch reason {
        case .io(let error): return error.code
        case .format(let error): return error.errno
        default: return nil
        }
    }

    /// The file the failure is about, when there is one: an archive, a store, a content database, a file of a
    /// sync folder or of an interop format, an output path.
    public var file: String? { facts.file }
    /// The 1-based line of `file` at fault, when the failure is in one line.
    public var line: Int? { facts.line }
    /// The field at fault of a change's values handed to the store (`merge`), when there is one.
    public var field: String? { facts.field }
    /// The id at fault (of an annotation, a change, a passage, a document, or an id prefix typed), when there is one.
    public var id: String? { facts.id }

    /// The facts the specific failure names.
    private var facts: ErrorFacts {
        switch reason {
        case .store(let error): return error.facts
        case .content(let error): return error.facts
        case .field(let error): return ErrorFacts(field: error.field.isEmpty ? nil : error.field)
        case .database: return ErrorFacts()
        case .io(let error): return ErrorFacts(file: error.path)
        case .format(let error): return error.facts
        case .reanchor: return ErrorFacts()
        case .search: return ErrorFacts()
        case .output(let error): return ErrorFacts(file: error.path)
        case .closed, .cancelled, .other: return ErrorFacts()
        }
    }

    /// The error in words: what failed and why.
    public var description: String {
        switch reason {
        case .store(let error): return error.description
        case .content(let error): return error.description
        case .field(let error): return error.description
        case .database(let error): return error.description
        case .io(let error): return error.description
        case .format(let error): return error.description
        case .reanchor(let error): return error.description
        case .search(let error): return error.description
        case .output(let error): return error.description
        case .closed: return "the store is closed"
        case .cancelled: return "cancelled; nothing was written"
        case .other(let text): return text
        }
    }

    /// The error in words (`description`), for `LocalizedError`.
    public var errorDescription: String? { description }

    /// The failure as the part of the library that raised it named it, for logging (its type is the library's own).
    public var underlyingError: any Error {
        switch reason {
        case .store(let error): return error
        case .content(let error): return error
        case .field(let error): return error
        case .database(let error): return error
        case .io(let error): return error
        case .format(let error): return error
        case .reanchor(let error): return error
        case .search(let error): return error
        case .output(let error): return error
        case .closed, .cancelled, .other: return self
        }
    }

    /// The store was closed before the call.
    public static let closed = MarginaliaError(category: .closed, reason: .closed)
    /// The work was cancelled.
    public static let cancelled = MarginaliaError(category: .cancelled, reason: .cancelled)
}

extension MarginaliaError {
    /// Classifies any error the library raises; a `MarginaliaError` stays as it is.
    package init(_ error: any Error) {
        switch error {
        case let error as MarginaliaError:
            self = error
        case let error as StoreError:
            self.init(category: Self.category(of: error), reason: .store(error))
        case let error as ContentError:
            self.init(category: Self.category(of: error), reason: .content(error))
        case let error as FieldError:
            self.init(category: .invalidArgument, reason: .field(error))
        case let error as SQLiteError:
            self.init(category: Self.category(of: error), reason: .database(error))
        case let error as IOError:
            self.init(category: error.isDiskFull ? .diskFull : .io, reason: .io(error))
        case let error as any CategorizedError:
            self.init(category: error.category, reason: .format(error))
        case let error as OutputRefusal:
            // What is there is replaced only when that is asked for (force), or never (the store itself).
            self.init(category: .refused, reason: .output(error))
        case let error as ReanchorError:
            // The content given does not fit the store's annotations: the caller's choice of content.
            self.init(category: .invalidArgument, reason: .reanchor(error))
        case let error as SearchError:
            self.init(category: .invalidArgument, reason: .search(error))
        case is CancellationError:
            self = .cancelled
        default:
            self.init(category: .io, reason: .other(String(describing: error)))
        }
    }

    /// `body`'s result, or its error classified: how an entry point of the public API outside the store (a key
    /// parsed, an archive verified) throws only `MarginaliaError`.
    package static func classifying<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw MarginaliaError(error)
        }
    }

    private static func category(of error: StoreError) -> Category {
        switch error {
        case .storeMissing, .annotationNotFound, .idNotFound: return .notFound
        case .notAStore: return .invalidData
        case .unreadable: return .io
        case .newerSchema: return .newerVersion
        case .corruptRow: return .corruptStore
        case .contentUnavailable: return .contentUnavailable
        case .sqliteTooOld: return .io
        // Like an SQLite too old, this machine's clock is neither the caller's argument nor the store's data.
        case .clockBeyondLog: return .io
        // The input may be right (a person did delete most notes): it waits for them to say so.
        case .massDeletion: return .refused
        case .ambiguousID, .idPrefixTooShort, .passageNotFound, .documentNotFound, .invalidAnchor, .invalidChange,
             .changeRefused, .changeNotOfAnnotation, .unchanged:
            return .invalidArgument
        }
    }

    private static func category(of error: ContentError) -> Category {
        switch error {
        case .missing, .notContent, .unreadable: return .contentUnavailable
        case .newerSchema: return .newerVersion
        case .invalidJSON, .invalidSource, .inconsistent: return .invalidData
        }
    }

    private static func category(of error: SQLiteError) -> Category {
        if error.isBusy { return .busy }
        if error.isFull { return .diskFull }
        if error.isCorrupt { return .corruptStore }
        return .io
    }

}

extension MarginaliaError.Reason {
    /// Whether two reasons are the same case with equal errors (a format's error compared by `isSame(as:)`).
    package static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case let (.store(a), .store(b)): return a == b
        case let (.content(a), .content(b)): return a == b
        case let (.field(a), .field(b)): return a == b
        case let (.database(a), .database(b)): return a == b
        case let (.io(a), .io(b)): return a == b
        case let (.reanchor(a), .reanchor(b)): return a == b
        case let (.search(a), .search(b)): return a == b
        case let (.output(a), .output(b)): return a == b
        case let (.format(a), .format(b)): return a.isSame(as: b)
        case (.closed, .closed), (.cancelled, .cancelled): return true
        case let (.other(a), .other(b)): return a == b
        default: return false
        }
    }
}

extension CategorizedError {
    /// No `errno`: the failure was not a system call's.
    package var errno: Int32? { nil }
    /// No facts beyond the words.
    package var facts: ErrorFacts { ErrorFacts() }
}

extension CategorizedError where Self: Equatable {
    /// Whether `other` is of this type and equal to this error.
    package func isSame(as other: any CategorizedError) -> Bool { (other as? Self) == self }
}
