// MARK: - Items that carry their own anchor

extension InteropImporter {
    /// The changes that make a W3C annotation written by Marginalia exactly what it says: a create when the store
    /// does not hold it, else an edit of what differs (note, color, tags) and a reattach when its anchor differs,
    /// dated when it was last modified. Nothing when the store holds it as it is.
    func plan(native: NativeAnnotation, item: ImportItem) throws -> PlannedAnnotation {
        let device = DerivedIdentifiers.device(of: item.format)
        let id = native.id
        var tags: [String: Bool] = [:]
        for tag in item.tags { tags[tag] = true }
        var changes: [Change] = []
        func add(_ operation: ChangeOperation, _ fields: ChangeFields, at milliseconds: Int64) throws {
            let text = try fields.jsonText()
            changes.append(Change(
                changeID: try DerivedIdentifiers.uuid([id, item.format.rawValue, operation.rawValue, text]),
                hlc: try ImportClock.checked(HLC(milliseconds: max(0, milliseconds), counter: 0), line: item.line),
                device: device, entity: .annotation, entityID: id, operation: operation, fields: fields))
        }
        guard let existing = try store.projection.loadRegisters(id: id)?.annotation else {
            try add(.create, ChangeFields(kind: item.kind, anchor: native.anchor, note: item.note, color: item.color,
                                          tags: tags), at: native.created)
            if native.deleted { try add(.delete, ChangeFields(deleted: true), at: native.modified) }
            return PlannedAnnotation(id: id, changes: changes, orphaned: false)
        }
        var edit = ChangeFields()
        if existing.note != item.note { edit.note = item.note ?? "" }
        if existing.color != item.color { edit.color = item.color ?? "" }
        for tag in existing.tags where tags[tag] == nil { edit.tags[tag] = false }
        for tag in item.tags where !existing.tags.contains(tag) { edit.tags[tag] = true }
        if edit != ChangeFields() { try add(.edit, edit, at: native.modified) }
        if existing.anchor != native.anchor {
            try add(.reattach, ChangeFields(anchor: native.anchor), at: native.modified)
        }
        if existing.deleted != native.deleted {
            try add(native.deleted ? .delete : .undelete, ChangeFields(deleted: native.deleted), at: native.modified)
        }
        return PlannedAnnotation(id: id, changes: changes, orphaned: false)
    }
}
