import Foundation

/// Every error the store's public API throws: a category an app can act on, and the specific case.
///
///     do {
///         try store.createAnnotation(.highlight, at: AnchorRequest(passage: "NO.SUCH"))
///     } catch let error as MarginaliaError where error.category == .invalidArgument {
///         showAlert(error.localizedDescription)    // "no passage NO.SUCH in the attached content"
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
    }

    /// The specific failure.
    public enum Reason: Equatable, Sendable {
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
    public let reason: Reason

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

    /// The failure as the part of the library that raised it named it: a `StoreError`, a `ContentError`, a file
    /// format's own error, ….
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
            // Writing there would replace what was not asked to be replaced: the caller's choice of file.
            self.init(category: .invalidArgument, reason: .output(error))
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

    private static func category(of error: StoreError) -> Category {
        switch error {
        case .storeMissing, .annotationNotFound, .idNotFound: return .notFound
        case .notAStore: return .invalidData
        case .unreadable: return .io
        case .newerSchema: return .newerVersion
        case .corruptRow: return .corruptStore
        case .contentUnavailable: return .contentUnavailable
        case .sqliteTooOld: return .io
        case .ambiguousID, .idPrefixTooShort, .passageNotFound, .documentNotFound, .invalidAnchor, .invalidChange,
             .changeNotOfAnnotation, .unchanged, .wouldOverwrite:
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
    public static func == (lhs: Self, rhs: Self) -> Bool {
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
    public var errno: Int32? { nil }
}

extension CategorizedError where Self: Equatable {
    /// Whether `other` is of this type and equal to this error.
    public func isSame(as other: any CategorizedError) -> Bool { (other as? Self) == self }
}
