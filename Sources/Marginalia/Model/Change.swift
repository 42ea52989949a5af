/// What a change is about.
package enum EntityKind: String, Sendable, CaseIterable {
    /// A highlight, note or bookmark; its id is the annotation id.
    case annotation
    /// A reading position; its id is the document id.
    case position
    /// A device's name (schema 8); its id is the device id.
    case device
}

/// What a change did.
package enum ChangeOperation: String, Sendable, CaseIterable {
    /// Made an annotation.
    case create
    /// Set the note, the color or tags.
    case edit
    /// Deleted an annotation (a tombstone).
    case delete
    /// Brought a deleted annotation back.
    case undelete
    /// Moved the anchor to where its text is in a new content edition.
    case reanchor
    /// Found the anchor intact in a new content edition: the same anchor, now on that edition.
    case confirm
    /// Anchored an annotation again, by hand.
    case reattach
    /// Set a reading position, or a device's name.
    case set
}

/// One row of the change log: the unit of history, of backup and of merging.
public struct Change: Hashable, Sendable, Identifiable {
    /// Globally unique (a UUID); the same change reaching a store twice is recognised by it.
    public var changeID: String
    /// The hybrid logical clock that orders the change.
    public var hlc: HLC
    /// The device (store) that made the change.
    public var device: String
    /// Whether it is about an annotation or a reading position.
    package var entity: EntityKind
    /// The annotation id, or the document id of a position.
    public var entityID: String
    /// What the change did.
    package var operation: ChangeOperation
    /// The fields it set, as stored in the log.
    package var fields: ChangeFields
    /// When the change was made, by the wall clock of the device that made it (milliseconds since 1970): what the
    /// log, the history and the exports show as its time. The HLC orders changes and never goes back; this says
    /// when a person did something, as that machine's clock read then. Nil for a change recorded before stores
    /// kept it (schema 5 and older, archive format 2 and older), whose time is its clock's.
    public var wall: Int64?

    /// When the change was made: its wall time, or its clock's for a change recorded without one.
    public var madeAt: Int64 { wall ?? hlc.milliseconds }

    /// A change with the given values; the merger checks it before it is taken in.
    package init(changeID: String, hlc: HLC, device: String, entity: EntityKind, entityID: String,
                operation: ChangeOperation, fields: ChangeFields, wall: Int64? = nil) {
        self.wall = wall
        self.changeID = changeID
        self.hlc = hlc
        self.device = device
        self.entity = entity
        self.entityID = entityID
        self.operation = operation
        self.fields = fields
    }

    /// The change id.
    public var id: String { changeID }

    /// The clock that orders this change against others touching the same field.
    package var stamp: ClockStamp { ClockStamp(hlc: hlc, device: device, changeID: changeID) }
}
