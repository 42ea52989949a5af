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

extension StoreConnection {
    /// What changed in the annotations between `since` and `until` (milliseconds since 1970; nil: up to now), by
    /// when the changes were made (`Change.madeAt`): the state before every change made at or after `since`,
    /// against the state with every change made before `until` — the changes `log(LogFilter(since:until:))` lists. Annotations whose changes
    /// in between left them as they were are left out; the rest come in the order of their first change in
    /// between.
    func diff(since: Int64, until: Int64? = nil) throws -> [AnnotationDiff] {
        let start = Self.bound(at: since)
        // A change's clock is never behind when it was made: `since` bounds the clock too, which its index serves.
        let ids = try db.fetchAll(
            sql: """
                SELECT entity_id FROM changes
                WHERE entity = 'annotation' AND hlc >= ?1 AND \(Self.madeAt) >= ?2
                    AND (?3 IS NULL OR \(Self.madeAt) < ?3)
                GROUP BY entity_id ORDER BY min(hlc), entity_id
                """,
            arguments: [start.packed, since, until]) { try $0.string(0) }
        return try ids.compactMap { id in
            let changes = try log.changes(of: .annotation, id: id)
            let before = AnnotationRegisters.fold(id: id, changes.filter { $0.madeAt < since }).annotation
            let after = AnnotationRegisters.fold(
                id: id, changes.filter { change in until.map { change.madeAt < $0 } ?? true })
                .annotation
            guard let after else { return nil }
            return AnnotationDiff(before: before, after: after)
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
