extension StoreConnection {
    /// Sets every field group of an annotation (note, color, tags, deleted, anchor) back to its value right after
    /// one of its changes, by the changes' clocks — as `annotation(id:asOf:)` shows it at that change — in one new
    /// change that merges like any edit (its clock is newer than every field's).
    ///
    /// - Parameters:
    ///   - id: the annotation's id or a unique prefix.
    ///   - change: the change's id, or a unique prefix of at least 4 characters (case ignored).
    /// - Throws: `StoreError.annotationNotFound`, `.ambiguousID`, `.idPrefixTooShort`, `.idNotFound`,
    ///   `.invalidChange` for a change that is not the annotation's, or `.unchanged` when every field already has
    ///   the value it would set (nothing is written).
    func revertAnnotation(id: String, to change: String) throws -> RevertResult {
        try write { transaction in
            let current = try annotation(id: id)
            let changes = try log.changes(of: .annotation, id: current.id)
            let target = try Self.change(named: change, among: changes, of: current.id, in: self)
            let state = AnnotationRegisters.fold(id: current.id, changes.filter { $0.stamp <= target.stamp })
            guard state.annotation != nil, let anchor = state.anchor else {
                throw StoreError.invalidChange(
                    reason: "annotation \(current.id) did not exist yet right after change \(target.changeID)")
            }
            guard let now = try projection.loadRegisters(id: current.id) else { throw StoreError.annotationNotFound(id: id) }
            var fields = ChangeFields(anchor: anchor, note: state.note ?? "", color: state.color ?? "",
                                      deleted: state.deleted, revertTo: target.changeID)
            // Every tag either state knows of; the ones that would not change are left out only when there are
            // more than one change may set.
            let names = Set(state.tags.keys).union(now.tags.keys)
            var tags = Dictionary(names.map { ($0, state.tags[$0] ?? false) }, uniquingKeysWith: { first, _ in first })
            if tags.count > FieldLimits.maxTagsPerChange {
                tags = tags.filter { now.tags[$0.key] != $0.value }
            }
            guard tags.count <= FieldLimits.maxTagsPerChange else {
                throw StoreError.invalidChange(
                    reason: "reverting \(current.id) would set \(tags.count) tags; one change sets at most "
                        + "\(FieldLimits.maxTagsPerChange)")
            }
            fields.tags = tags
            let restored = state.annotation.map { Self.sameValues($0, current) } ?? false
            guard !restored else {
                throw StoreError.unchanged(
                    id: current.id,
                    reason: "annotation \(current.id) is already as it was right after change \(target.changeID)")
            }
            do {
                try fields.validate(for: .edit, on: .annotation)
                try fields.checkValues()
            } catch let error as FieldError {
                throw StoreError.invalidChange(reason: error.description)
            }
            let (written, registers) = try transaction.recordState(.annotation, current.id, .edit, fields)
            guard let annotation = registers?.annotation else { throw StoreError.annotationNotFound(id: id) }
            return RevertResult(change: written, annotation: annotation)
        }
    }

    /// The change `text` names (its id or a unique prefix, as `resolveID` takes it), which must be one of
    /// `changes`, those of `annotation`.
    static func change(named text: String, among changes: [Change], of annotation: String,
                       in store: StoreConnection) throws -> Change {
        let id = try store.ids.resolve(text, kind: .change)
        guard let change = changes.first(where: { $0.changeID == id }) else {
            throw StoreError.changeNotOfAnnotation(change: id, annotation: annotation)
        }
        return change
    }

    /// Whether two states of an annotation hold the same field values (clocks aside).
    static func sameValues(_ lhs: Annotation, _ rhs: Annotation) -> Bool {
        lhs.anchor == rhs.anchor && lhs.note == rhs.note && lhs.color == rhs.color && lhs.tags == rhs.tags
            && lhs.deleted == rhs.deleted
    }
}
