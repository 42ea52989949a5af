/// What happened to one annotation between two times: its fields before and after, and what that amounts to.
public struct AnnotationDiff: Hashable, Sendable {
    /// What the difference amounts to.
    public enum Event: String, Hashable, Sendable {
        /// It did not exist before.
        case created
        /// It was live before and is a tombstone after.
        case deleted
        /// It was a tombstone before and is live after.
        case undeleted
        /// Its range moved: another document, passage or offset, or another quote.
        case moved
        /// Its note, color or tags changed, or its anchor was confirmed on another edition.
        case edited
    }

    /// One field whose value differs.
    public struct Field: Hashable, Sendable {
        /// Which field.
        public var field: AnnotationField
        /// Its value before (`.none` when the annotation did not exist yet).
        public var before: FieldValue
        /// Its value after.
        public var after: FieldValue
    }

    /// The annotation's id.
    public var id: String
    /// The annotation as it was before, nil when it did not exist yet.
    public var before: Annotation?
    /// The annotation as it was after.
    public var after: Annotation
    /// What the difference amounts to, in the order created, deleted, undeleted, moved, edited.
    public var events: [Event]
    /// Each field whose value differs, in the order of `AnnotationField`.
    public var fields: [Field]
}

extension Annotation {
    /// The value of `field`.
    func value(of field: AnnotationField) -> FieldValue {
        switch field {
        case .kind: return .kind(kind)
        case .anchor: return .anchor(anchor)
        case .note: return note.map(FieldValue.text) ?? .none
        case .color: return color.map(FieldValue.text) ?? .none
        case .tags: return .tags(tags)
        case .deleted: return .flag(deleted)
        }
    }
}

extension AnnotationDiff {
    /// The difference between two states of one annotation; nil when they hold the same values.
    init?(before: Annotation?, after: Annotation) {
        let fields = AnnotationField.allCases.compactMap { field -> Field? in
            // Before it existed an annotation had no tags and was not deleted: a new one lists only what it set.
            let old = before?.value(of: field) ?? (field == .tags ? .tags([]) : field == .deleted ? .flag(false) : .none)
            let new = after.value(of: field)
            return old == new ? nil : Field(field: field, before: old, after: new)
        }
        guard !fields.isEmpty else { return nil }
        var events: [Event] = []
        if let before {
            if !before.deleted && after.deleted { events.append(.deleted) }
            if before.deleted && !after.deleted { events.append(.undeleted) }
            let (old, new) = (before.anchor, after.anchor)
            if old.document != new.document || old.start != new.start || old.end != new.end || old.quote != new.quote {
                events.append(.moved)
            }
            let edited: Set<AnnotationField> = [.note, .color, .tags, .kind]
            if fields.contains(where: { edited.contains($0.field) })
                || (events.contains(.moved) == false && fields.contains { $0.field == .anchor }) {
                events.append(.edited)
            }
        } else {
            events.append(.created)
            if after.deleted { events.append(.deleted) }
        }
        self.init(id: after.id, before: before, after: after, events: events, fields: fields)
    }
}
