/// A field where a segment's change lost to a newer value already in the store (last writer wins). The losing
/// value stays in the log, so `marginalia history` still shows it.
public struct SyncConflict: Equatable, Sendable {
    /// The annotation the field belongs to.
    public var annotationID: String
    /// `note`, `color`, `deleted` or `tag:<name>`.
    public var field: String
    /// The value the segment's change set, which lost ("" for a cleared note or color).
    public var lostValue: String
    /// The value kept (nil: none, e.g. a cleared note).
    public var keptValue: String?
    /// The change that lost.
    public var lostChangeID: String
}

extension StoreConnection {
    /// The most conflicts listed per device and round; the count covers all of them.
    static let listedConflictsLimit = 100

    /// The ids of `changes` the store does not hold yet.
    func unknownChangeIDs(_ changes: [Change]) throws -> Set<String> {
        var unknown: Set<String> = []
        for change in changes where change.entity == .annotation && change.operation != .create {
            let present = try db.int(sql: "SELECT count(*) FROM changes WHERE change_id = ?",
                                     arguments: [change.changeID]) ?? 0
            if present == 0 { unknown.insert(change.changeID) }
        }
        return unknown
    }

    /// After a merge: the fields where one of the `fresh` changes lost to a newer value already here.
    func conflicts(among changes: [Change], fresh: Set<String>, limit: Int) throws -> [SyncConflict] {
        var found: [SyncConflict] = []
        for change in changes where fresh.contains(change.changeID) && found.count < limit {
            let rows = try db.fetchAll(
                sql: "SELECT \(Self.registerColumns) FROM annotations WHERE id = ?", arguments: [change.entityID]
            ) { try AnnotationRegisters(row: $0) }
            guard let current = rows.first else { continue }
            func check(_ field: String, lost: String, kept: String?) {
                guard let stamp = current.clocks[field], stamp != change.stamp, stamp > change.stamp else { return }
                found.append(SyncConflict(annotationID: change.entityID, field: field, lostValue: lost,
                                          keptValue: kept, lostChangeID: change.changeID))
            }
            let fields = change.fields
            if let note = fields.note { check("note", lost: note, kept: current.note) }
            if let color = fields.color { check("color", lost: color, kept: current.color) }
            if let deleted = fields.deleted { check("deleted", lost: "\(deleted)", kept: "\(current.deleted)") }
            for (tag, present) in fields.tags.sorted(by: { $0.key < $1.key }) {
                check("tag:" + tag, lost: "\(present)", kept: current.tags[tag].map { "\($0)" })
            }
        }
        return Array(found.prefix(limit))
    }
}
