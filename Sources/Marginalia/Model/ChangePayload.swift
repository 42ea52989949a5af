/// What a change does, with its fields, typed: the form an app builds and reads changes in. (JSON is only the
/// form the log and the archive store them in.)
public enum ChangePayload: Hashable, Sendable {
    /// Makes an annotation.
    case create(kind: AnnotationKind, anchor: Anchor, note: String?, color: String?, tags: Set<String>)
    /// Sets or clears the note and the color, adds (true) or removes (false) tags; nil leaves a field as it is.
    case edit(note: FieldUpdate?, color: FieldUpdate?, tags: [String: Bool])
    /// Sets field groups back to their values right after the change `to` (an `edit` in the log that names it);
    /// nil leaves a group as it is.
    case revert(to: String, note: FieldUpdate?, color: FieldUpdate?, tags: [String: Bool], deleted: Bool?,
                anchor: Anchor?)
    /// Turns the annotation into a tombstone.
    case delete
    /// Brings a deleted annotation back.
    case undelete
    /// Moves the anchor to where its text is in a new content edition.
    case reanchor(Anchor)
    /// Finds the anchor intact in a new content edition.
    case confirm(Anchor)
    /// Anchors the annotation again, by hand.
    case reattach(Anchor)
    /// Sets a document's reading position (the change's entity id is the document).
    case setPosition(TextPosition)
    /// Names a device, as people call it (the change's entity id is the device id).
    case nameDevice(String)

    /// What the change is about.
    package var entity: EntityKind {
        switch self {
        case .setPosition: return .position
        case .nameDevice: return .device
        default: return .annotation
        }
    }

    /// The operation, as the log names it.
    package var operation: ChangeOperation {
        switch self {
        case .create: return .create
        case .edit, .revert: return .edit
        case .delete: return .delete
        case .undelete: return .undelete
        case .reanchor: return .reanchor
        case .confirm: return .confirm
        case .reattach: return .reattach
        case .setPosition, .nameDevice: return .set
        }
    }

    /// The registers the change writes.
    package var registers: [Register] {
        switch self {
        case .create(_, _, let note, let color, let tags):
            return [.kind, .anchor] + (note == nil ? [] : [.note]) + (color == nil ? [] : [.color])
                + tags.sorted().map(Register.tag)
        case .edit(let note, let color, let tags):
            return (note == nil ? [] : [.note]) + (color == nil ? [] : [.color])
                + tags.keys.sorted().map(Register.tag)
        case .revert(_, let note, let color, let tags, let deleted, let anchor):
            return (anchor == nil ? [] : [.anchor]) + (note == nil ? [] : [.note]) + (color == nil ? [] : [.color])
                + tags.keys.sorted().map(Register.tag) + (deleted == nil ? [] : [.deleted])
        case .delete, .undelete: return [.deleted]
        case .reanchor, .confirm, .reattach: return [.anchor]
        case .setPosition, .nameDevice: return []
        }
    }

    /// The stored form: the fields as the log and the archive hold them (an empty string clears).
    var fields: ChangeFields {
        func text(_ update: FieldUpdate?) -> String? {
            switch update {
            case .set(let value)?: return value
            case .clear?: return ""
            case nil: return nil
            }
        }
        switch self {
        case .create(let kind, let anchor, let note, let color, let tags):
            return ChangeFields(kind: kind, anchor: anchor, note: note, color: color,
                                tags: Dictionary(tags.map { ($0, true) }, uniquingKeysWith: { $1 }))
        case .edit(let note, let color, let tags):
            return ChangeFields(note: text(note), color: text(color), tags: tags)
        case .revert(let change, let note, let color, let tags, let deleted, let anchor):
            return ChangeFields(anchor: anchor, note: text(note), color: text(color), tags: tags, deleted: deleted,
                                revertTo: change)
        case .delete: return ChangeFields(deleted: true)
        case .undelete: return ChangeFields(deleted: false)
        case .reanchor(let anchor), .confirm(let anchor), .reattach(let anchor): return ChangeFields(anchor: anchor)
        case .setPosition(let position): return ChangeFields(position: position)
        case .nameDevice(let name): return ChangeFields(name: name)
        }
    }

    /// The payload of stored fields that were validated for `operation`; nil when they do not fit it.
    init?(operation: ChangeOperation, fields: ChangeFields) {
        func update(_ text: String?) -> FieldUpdate? {
            text.map { $0.isEmpty ? .clear : .set($0) }
        }
        switch operation {
        case .create:
            guard let kind = fields.kind, let anchor = fields.anchor else { return nil }
            self = .create(kind: kind, anchor: anchor, note: fields.note, color: fields.color,
                           tags: Set(fields.tags.filter(\.value).keys))
        case .edit:
            if let change = fields.revertTo {
                self = .revert(to: change, note: update(fields.note), color: update(fields.color), tags: fields.tags,
                               deleted: fields.deleted, anchor: fields.anchor)
            } else {
                self = .edit(note: update(fields.note), color: update(fields.color), tags: fields.tags)
            }
        case .delete: self = .delete
        case .undelete: self = .undelete
        case .reanchor, .confirm, .reattach:
            guard let anchor = fields.anchor else { return nil }
            self = operation == .reanchor ? .reanchor(anchor) : operation == .confirm ? .confirm(anchor)
                : .reattach(anchor)
        case .set:
            if let name = fields.name {
                self = .nameDevice(name)
                return
            }
            guard let position = fields.position else { return nil }
            self = .setPosition(position)
        }
    }
}

extension Change {
    /// A change from another store or a transport, with its fields typed.
    ///
    /// - Parameters:
    ///   - entityID: the annotation id, for `.setPosition` the document id, for `.nameDevice` the device id.
    public init(changeID: String, hlc: HLC, device: String, entityID: String, payload: ChangePayload,
                wall: Int64? = nil) {
        self.init(changeID: changeID, hlc: hlc, device: device, entity: payload.entity, entityID: entityID,
                  operation: payload.operation, fields: payload.fields, wall: wall)
    }

    /// What the change does, typed; nil only for a change whose fields do not fit its operation, which no store
    /// holds (the log and every archive are validated).
    public var payload: ChangePayload? {
        ChangePayload(operation: operation, fields: fields)
    }
}
