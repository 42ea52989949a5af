/// The fields a change sets, typed; stored in the log (and in archives) as a JSON object.
///
/// JSON shape by operation (keys in this order):
/// - `create`: `kind`, the anchor keys `document`, `start` {`passage`, `offset`}, `end`, `quote`, `prefix`,
///   `suffix`, `edition`; optionally `note`, `color`, `tags`
/// - `edit`: one or more of `note`, `color` (an empty string clears them), `tags` ({"tag": true|false}); a revert
///   (an edit that sets `revertTo`, the id of the change whose state it restores) may also set the anchor keys and
///   `deleted`
/// - `delete`: `{"deleted": true}`; `undelete`: `{"deleted": false}`
/// - `reanchor`, `confirm`, `reattach`: the anchor keys
/// - `set` (reading position): `passage`, `offset`
/// - `set` (device): `name`
/// Unknown keys are refused: a field this version does not understand could not be merged faithfully.
package struct ChangeFields: Hashable, Sendable {
    /// The kind an annotation is created as.
    package var kind: AnnotationKind?
    /// Where it is anchored (create, reanchor, confirm, reattach).
    package var anchor: Anchor?
    /// A new note; the empty string clears it.
    package var note: String?
    /// A new color; the empty string clears it.
    package var color: String?
    /// Tags added (true) or removed (false).
    package var tags: [String: Bool]
    /// Whether the change deletes (true) or brings back (false) an annotation.
    package var deleted: Bool?
    /// A reading position.
    package var position: TextPosition?
    /// The change whose state a revert restores (an `edit` only).
    package var revertTo: String?
    /// A device's name, as people call it (a device's `set` only).
    package var name: String?

    /// Fields with the given values; nil (and an empty `tags`) leaves a field unset.
    package init(kind: AnnotationKind? = nil, anchor: Anchor? = nil, note: String? = nil, color: String? = nil,
                tags: [String: Bool] = [:], deleted: Bool? = nil, position: TextPosition? = nil,
                revertTo: String? = nil, name: String? = nil) {
        self.kind = kind
        self.anchor = anchor
        self.note = note
        self.color = color
        self.tags = tags
        self.deleted = deleted
        self.position = position
        self.revertTo = revertTo
        self.name = name
    }
}

/// Bounds on what one change may hold, so that a hostile file cannot smuggle in absurd values.
package enum FieldLimits {
    /// The longest note, quote or title, in UTF-8 bytes.
    package static let maxTextBytes = 1 << 20
    /// The longest prefix or suffix, in code points.
    package static let maxContextLength = 256
    /// The longest id (annotation, passage, document, edition, device), in UTF-8 bytes.
    package static let maxIDBytes = 256
    /// The longest tag or color, in code points.
    package static let maxLabelLength = 64
    /// The most tags one change may set.
    package static let maxTagsPerChange = 256
    /// The largest offset.
    package static let maxOffset = Int(Int32.max)
}

// MARK: - Validation

extension ChangeFields {
    /// Checks that the fields are exactly those `operation` on `entity` sets.
    package func validate(for operation: ChangeOperation, on entity: EntityKind) throws(FieldError) {
        let present = presentKeys
        func require(_ allowed: Keys, _ required: Keys) throws(FieldError) {
            // The anchor and the position are groups of JSON keys; errors name their first key.
            func jsonKey(_ name: String) -> String? { ["anchor": "document", "position": "passage"][name] }
            if let extra = present.subtracting(allowed).names.sorted().first {
                throw FieldError(
                    field: jsonKey(extra) ?? extra, reason: "not allowed in a \(operation.rawValue) change")
            }
            if let missing = required.subtracting(present).names.sorted().first {
                throw FieldError(
                    field: jsonKey(missing) ?? missing, reason: "required in a \(operation.rawValue) change")
            }
        }
        switch (entity, operation) {
        case (.annotation, .create):
            try require([.kind, .anchor, .note, .color, .tags], [.kind, .anchor])
        case (.annotation, .edit):
            guard revertTo != nil else {
                try require([.note, .color, .tags], [])
                guard !present.isEmpty else { throw FieldError(field: "", reason: "an edit change sets nothing") }
                return
            }
            try require([.note, .color, .tags, .anchor, .deleted, .revertTo], [.revertTo])
            guard present.rawValue.nonzeroBitCount > 1 else {
                throw FieldError(field: "", reason: "a revert change sets nothing")
            }
        case (.annotation, .delete):
            try require([.deleted], [.deleted])
            guard deleted == true else { throw FieldError(field: "deleted", reason: "must be true in a delete change") }
        case (.annotation, .undelete):
            try require([.deleted], [.deleted])
            guard deleted == false else {
                throw FieldError(field: "deleted", reason: "must be false in an undelete change")
            }
        case (.annotation, .reanchor), (.annotation, .confirm), (.annotation, .reattach):
            try require([.anchor], [.anchor])
        case (.position, .set):
            try require([.position], [.position])
        case (.device, .set):
            try require([.name], [.name])
        default:
            throw FieldError(
                field: "", reason: "operation \(operation.rawValue) does not apply to a \(entity.rawValue)")
        }
    }

    /// The fields a change sets, by their names in the change's JSON (`anchor` and `position` stand for their
    /// groups of keys): a bit each, so that checking a change compares bits and makes no set of strings.
    struct Keys: OptionSet {
        let rawValue: UInt16

        static let kind = Keys(rawValue: 1 << 0)
        static let anchor = Keys(rawValue: 1 << 1)
        static let note = Keys(rawValue: 1 << 2)
        static let color = Keys(rawValue: 1 << 3)
        static let tags = Keys(rawValue: 1 << 4)
        static let deleted = Keys(rawValue: 1 << 5)
        static let position = Keys(rawValue: 1 << 6)
        static let revertTo = Keys(rawValue: 1 << 7)
        static let name = Keys(rawValue: 1 << 8)

        private static let named: [(Keys, String)] = [
            (.kind, "kind"), (.anchor, "anchor"), (.note, "note"), (.color, "color"), (.tags, "tags"),
            (.deleted, "deleted"), (.position, "position"), (.revertTo, "revertTo"), (.name, "name"),
        ]

        /// The names of the keys in the set (none for an empty set, without looking).
        var names: [String] {
            isEmpty ? [] : Self.named.filter { contains($0.0) }.map(\.1)
        }
    }

    private var presentKeys: Keys {
        var keys: Keys = []
        if kind != nil { keys.insert(.kind) }
        if anchor != nil { keys.insert(.anchor) }
        if note != nil { keys.insert(.note) }
        if color != nil { keys.insert(.color) }
        if !tags.isEmpty { keys.insert(.tags) }
        if deleted != nil { keys.insert(.deleted) }
        if position != nil { keys.insert(.position) }
        if revertTo != nil { keys.insert(.revertTo) }
        if name != nil { keys.insert(.name) }
        return keys
    }
}
