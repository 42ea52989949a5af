import Foundation

// MARK: - Making and changing annotations

extension StoreConnection {
    /// Makes a highlight, note or bookmark at `request`, checked against the attached content.
    ///
    /// The change and the new current row are written in one transaction.
    /// - Parameters:
    ///   - note: the note text (for a bookmark, its title).
    /// - Throws: `StoreError` for an anchor that does not fit the content or an invalid note, color or tag.
    @discardableResult
    func createAnnotation(_ kind: AnnotationKind, at request: AnchorRequest, note: String? = nil,
                                 color: String? = nil, tags: [String] = []) throws -> Annotation {
        // Inside a batch, the rows of the annotations it created before this one can wait until after it.
        try write { transaction in try transaction.holdingDeferredCreates {
            let anchor = try anchoring.resolveAnchor(request, kind: kind)
            var fields = ChangeFields(kind: kind, anchor: anchor)
            if let note, !note.isEmpty { fields.note = note }
            if let color, !color.isEmpty { fields.color = color.canonicallyComposed }
            for tag in tags { fields.tags[tag.canonicallyComposed] = true }
            let id = Identifiers.make()
            return try write(.create, annotation: id, fields, freshID: true)
        } }
    }

    /// Sets the note or color (an empty string clears it), adds and removes tags (a removed tag matches ignoring
    /// case and diacritics, as tag filters do).
    /// - Throws: `StoreError.annotationNotFound`, `.unchanged` when nothing would change, or `.invalidChange` when
    ///   the annotation is deleted.
    @discardableResult
    func editAnnotation(id: String, note: String? = nil, color: String? = nil, addTags: [String] = [],
                               removeTags: [String] = []) throws -> Annotation {
        let current = try annotation(id: id)
        guard !current.deleted else {
            throw StoreError.invalidChange(reason: "annotation \(current.id) is deleted; undelete it first")
        }
        var fields = ChangeFields()
        let color = color?.canonicallyComposed
        let addTags = addTags.map(\.canonicallyComposed)
        let removeTags = removeTags.map(\.canonicallyComposed)
        if let note, note != (current.note ?? "") { fields.note = note }
        if let color, color != (current.color ?? "") { fields.color = color }
        for tag in addTags where !current.tags.contains(tag) { fields.tags[tag] = true }
        // A tag is removed however it was spelled: as a filter finds it, ignoring case and diacritics.
        let removedKeys = Set(removeTags.map(Self.tagKey))
        for tag in current.tags where removedKeys.contains(Self.tagKey(tag)) { fields.tags[tag] = false }
        guard fields != ChangeFields() else {
            throw StoreError.unchanged(
                id: current.id, reason: "annotation \(current.id) already has those values")
        }
        return try write(.edit, annotation: current.id, fields)
    }

    /// Deletes an annotation: it becomes a tombstone, still listed with `--deleted` and kept in history.
    @discardableResult
    func deleteAnnotation(id: String) throws -> Annotation {
        let current = try annotation(id: id)
        guard !current.deleted else {
            throw StoreError.unchanged(id: current.id, reason: "annotation \(current.id) is already deleted")
        }
        return try write(.delete, annotation: current.id, ChangeFields(deleted: true))
    }

    /// Brings a deleted annotation back.
    @discardableResult
    func undeleteAnnotation(id: String) throws -> Annotation {
        let current = try annotation(id: id)
        guard current.deleted else {
            throw StoreError.unchanged(id: current.id, reason: "annotation \(current.id) is not deleted")
        }
        return try write(.undelete, annotation: current.id, ChangeFields(deleted: false))
    }

    /// Checks `fields`, records the change and returns the annotation as it now stands.
    private func write(_ operation: ChangeOperation, annotation id: String,
                       _ fields: ChangeFields, freshID: Bool = false) throws -> Annotation {
        do {
            try fields.validate(for: operation, on: .annotation)
            // Values are checked as an imported change's would be, by the same rules.
            try fields.checkValues()
        } catch {
            throw StoreError.invalidChange(reason: error.description)
        }
        return try localWrite { transaction in
            // The registers just saved are the annotation as it now stands: no need to read it back.
            let registers = try transaction.recordState(.annotation, id, operation, fields, freshID: freshID).registers
            if let annotation = registers?.annotation { return annotation }
            return try annotation(id: id)
        }
    }
}

// MARK: - Reading positions

extension StoreConnection {
    /// Sets the reading position in `document`, checked against the attached content.
    @discardableResult
    func setPosition(document: String, at position: TextPosition) throws -> ReadingPosition {
        guard try attached.document(id: document) != nil else { throw StoreError.documentNotFound(id: document) }
        guard let passage = try attached.passage(id: position.passage) else {
            throw StoreError.passageNotFound(id: position.passage)
        }
        guard passage.document == document else {
            throw StoreError.invalidAnchor(reason: "\(passage.id) is in document \(passage.document), not \(document)")
        }
        let length = passage.text.unicodeScalars.count
        guard position.offset <= length else {
            throw StoreError.invalidAnchor(
                reason: "offset \(position.offset) is past the end of \(passage.id) (\(length) characters)")
        }
        return try write { transaction in
            try transaction.record(.position, document, .set, ChangeFields(position: position))
            guard let stored = try self.position(document: document) else {
                throw StoreError.invalidChange(reason: "the position of \(document) was not recorded")
            }
            return stored
        }
    }

    /// The reading position in `document`, or nil when none was set.
    func position(document: String) throws -> ReadingPosition? {
        try db.fetchOne(
            sql: "SELECT document, passage, offset, updated_hlc FROM positions WHERE document = ?",
            arguments: [document], ReadingPosition.init(row:))
    }

    /// Every reading position, by document id.
    func positions() throws -> [ReadingPosition] {
        try db.fetchAll(
            sql: "SELECT document, passage, offset, updated_hlc FROM positions ORDER BY document",
            ReadingPosition.init(row:))
    }
}

extension ReadingPosition {
    init(row: Row) throws {
        self.init(
            document: try row.string(0), position: TextPosition(passage: try row.string(1), offset: try row.int(2)),
            updatedAt: HLC(try row.string(3)) ?? .zero)
    }
}
