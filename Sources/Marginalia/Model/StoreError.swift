/// Why a store operation was refused: each case names what the user asked for that cannot be done.
package enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// There is no store at the path, and the command does not create one.
    case storeMissing(path: String)
    /// The store exists but cannot be read (permission, an I/O error), or SQLite cannot open it read-only here.
    case unreadable(path: String, reason: String)
    /// The SQLite library in use is older than the store's schema needs.
    case sqliteTooOld(found: String, required: String)
    /// The file is not a Marginalia user database.
    case notAStore(path: String, reason: String)
    /// The store was written by a newer version of Marginalia; it is left untouched.
    case newerSchema(path: String, found: Int32, supported: Int32)
    /// No annotation has this id.
    case annotationNotFound(id: String)
    /// An id prefix matches more than one id of its kind: the first `IDPrefix.listedMatches` of them, and how many
    /// there are.
    case ambiguousID(prefix: String, kind: IDKind, matches: [String], count: Int)
    /// An id given by a prefix shorter than `minimum` characters that is not itself an id.
    case idPrefixTooShort(prefix: String, kind: IDKind, minimum: Int)
    /// No device or change has this id (or an id starting with it); annotations have `annotationNotFound`.
    case idNotFound(id: String, kind: IDKind)
    /// The operation needs the content database, which is not attached.
    case contentUnavailable(reason: String)
    /// The attached content has no passage with this id.
    case passageNotFound(id: String)
    /// The attached content has no document with this id.
    case documentNotFound(id: String)
    /// A requested anchor does not fit the attached content.
    case invalidAnchor(reason: String)
    /// A requested change is not valid for the annotation (e.g. a color on a bookmark).
    case invalidChange(reason: String)
    /// A change handed to the merger is refused: its 1-based place among those given, its id when it has one, the
    /// field at fault when one is (`fields.note`), and why. The place and the field are values, so that a transport
    /// names the line it came from, and an app the field, without reading these words.
    case changeRefused(position: Int, changeID: String?, field: String?, reason: String)
    /// A change named for an annotation (to revert it to) is not one of that annotation's changes.
    case changeNotOfAnnotation(change: String, annotation: String)
    /// The request asks for what the annotation already is (an edit to the values it has, a delete of a deleted
    /// one, an undelete of one that is not deleted): nothing was written.
    case unchanged(id: String, reason: String)
    /// A row the store holds cannot be read: the store is damaged (never the caller's mistake).
    case corruptRow(reason: String)
    /// A change made now would take a clock after the latest the log holds (`HLC.latestStored`): this machine's
    /// clock reads `wallClock` (milliseconds since 1970), after it, or the store's clock has reached it. Nothing
    /// was written.
    case clockBeyondLog(wallClock: Int64)
    /// A merge would delete more than half of the live annotations, and more than `DeletionBrake.minimum`:
    /// nothing was written. `byDevice` counts the deletions by the device that made them.
    case massDeletion(wouldDelete: Int, live: Int, byDevice: [String: Int])

    /// The problem in words.
    package var description: String {
        switch self {
        case .storeMissing(let path):
            return "no store at \(path)"
        case .unreadable(let path, let reason):
            return "cannot read the store \(path): \(reason)"
        case .notAStore(let path, let reason):
            return "\(path) is not a Marginalia store: \(reason)"
        case .newerSchema(let path, let found, let supported):
            return "\(path) was created by a newer version of marginalia (store schema \(found); this version "
                + "reads up to \(supported)); it was left untouched — upgrade marginalia to open it"
        case .annotationNotFound(let id):
            return "no annotation with id \(id)"
        case .ambiguousID(let prefix, let kind, let matches, let count):
            let more = count > matches.count ? " and \(count - matches.count) more" : ""
            return "'\(prefix)' matches \(count) \(kind.noun(count)): \(matches.joined(separator: ", "))\(more); "
                + "give more characters"
        case .idPrefixTooShort(let prefix, let kind, let minimum):
            let article = kind == .annotation ? "an" : "a"
            return "'\(prefix)' is too short for \(article) \(kind.rawValue) id: give at least \(minimum) characters "
                + "(the short ids shown have 8 or more)"
        case .idNotFound(let id, let kind):
            return kind == .device
                ? "no device \(id) in this store (neither this store's own nor one that made a change in its log)"
                : "no \(kind.rawValue) with id \(id) in this store's log"
        case .contentUnavailable(let reason):
            return "content is not available: \(reason)"
        case .passageNotFound(let id):
            return "no passage \(id) in the attached content"
        case .documentNotFound(let id):
            return "no document \(id) in the attached content"
        case .invalidAnchor(let reason):
            return reason
        case .changeNotOfAnnotation(let change, let annotation):
            return "change \(change) is not a change of annotation \(annotation)"
        case .invalidChange(let reason):
            return reason
        case .changeRefused(let position, let changeID, let field, let reason):
            return "change \(position)" + (changeID.map { " (\($0))" } ?? "") + ": "
                + FieldError(field: field ?? "", reason: reason).description
        case .unchanged(_, let reason):
            return reason
        case .sqliteTooOld(let found, let required):
            return "this SQLite (\(found)) is too old for Marginalia's stores, which need \(required) or later"
        case .corruptRow(let reason):
            return "the store is damaged: \(reason)"
        case .clockBeyondLog(let wallClock):
            return "this machine's clock reads \(Timestamp.iso8601(milliseconds: wallClock)): a change made now "
                + "would take a clock after \(Timestamp.iso8601(milliseconds: HLC.maxStoredMilliseconds)), which "
                + "the log cannot store; nothing was written"
        case .massDeletion(let deleting, let live, let byDevice):
            let devices = byDevice.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
                .map { "\($0.value) by device \($0.key)" }.joined(separator: ", ")
            return "this would delete \(deleting) of the \(live) live annotations (\(devices)): more than half, "
                + "so nothing was written"
        }
    }
}

extension StoreError {
    /// The file and the id the refusal names.
    package var facts: ErrorFacts {
        switch self {
        case .storeMissing(let path), .unreadable(let path, _), .notAStore(let path, _), .newerSchema(let path, _, _):
            return ErrorFacts(file: path)
        case .annotationNotFound(let id), .idNotFound(let id, _), .passageNotFound(let id),
             .documentNotFound(let id), .unchanged(let id, _):
            return ErrorFacts(id: id)
        case .ambiguousID(let prefix, _, _, _), .idPrefixTooShort(let prefix, _, _):
            return ErrorFacts(id: prefix)
        case .changeNotOfAnnotation(let change, _):
            return ErrorFacts(id: change)
        case .changeRefused(_, let changeID, let field, _):
            return ErrorFacts(field: field, id: changeID)
        case .sqliteTooOld, .contentUnavailable, .invalidAnchor, .invalidChange, .corruptRow, .clockBeyondLog,
             .massDeletion:
            return ErrorFacts()
        }
    }
}
