/// One annotation as a set of last-writer-wins registers: the fold of its changes.
///
/// Each field group (`kind`, `anchor`, `note`, `color`, `deleted`, and one per tag) holds the value set by the
/// change with the greatest `ClockStamp` among those that set it. Applying changes in any order, any number of
/// times, gives the same registers, which is what makes merging converge. The delete flag is a register like
/// the others: an edit never touches it, so an edit cannot bring a deleted annotation back; only an undelete
/// newer than the delete does.
struct AnnotationRegisters: Equatable {
    let id: String
    var kind: AnnotationKind?
    var createdEdition: String?
    var anchor: Anchor?
    var note: String?
    var color: String?
    /// Every tag ever set on the annotation, present (true) or removed (false).
    var tags: [String: Bool] = [:]
    var deleted = false
    /// The latest timestamp of any change to the annotation.
    var updatedHLC = HLC.zero
    /// The stamp of the change that last set each register; tag registers are keyed `tag:<name>`.
    var clocks: [String: ClockStamp] = [:]

    init(id: String) {
        self.id = id
    }

    /// What applying one change did.
    struct Outcome: Equatable {
        /// Registers the change set.
        var won = 0
        /// Registers that kept a newer value instead (a conflict resolved against the change), by name.
        var lostRegisters: [String] = []
        /// How many registers kept a newer value.
        var lost: Int { lostRegisters.count }
    }

    /// Applies one change; fields whose register holds a newer stamp are left as they are.
    @discardableResult
    mutating func apply(_ change: Change) -> Outcome {
        let stamp = change.stamp
        let fields = change.fields
        var outcome = Outcome()
        func register(_ name: String, _ assign: (inout AnnotationRegisters) -> Void) {
            if let current = clocks[name], current >= stamp {
                if current != stamp { outcome.lostRegisters.append(name) }
                return
            }
            clocks[name] = stamp
            assign(&self)
            outcome.won += 1
        }
        if let kind = fields.kind {
            register("kind") {
                $0.kind = kind
                $0.createdEdition = fields.anchor?.edition
            }
        }
        if let anchor = fields.anchor { register("anchor") { $0.anchor = anchor } }
        if let note = fields.note { register("note") { $0.note = note.isEmpty ? nil : note } }
        if let color = fields.color { register("color") { $0.color = color.isEmpty ? nil : color } }
        for (tag, present) in fields.tags {
            register("tag:" + tag) { $0.tags[tag] = present }
        }
        if let deleted = fields.deleted { register("deleted") { $0.deleted = deleted } }
        if change.hlc > updatedHLC { updatedHLC = change.hlc }
        return outcome
    }

    /// The annotation, once a create change has been applied.
    var annotation: Annotation? {
        guard let kind, let anchor, let createdEdition, let created = clocks["kind"] else { return nil }
        return Annotation(
            id: id, kind: kind, anchor: anchor, createdEdition: createdEdition, note: note, color: color,
            tags: tags.filter(\.value).map(\.key).sorted(), deleted: deleted, createdAt: created.hlc,
            updatedAt: updatedHLC)
    }

    /// The registers rebuilt from all of an annotation's changes, in any order.
    static func fold(id: String, _ changes: [Change]) -> AnnotationRegisters {
        var registers = AnnotationRegisters(id: id)
        for change in changes { registers.apply(change) }
        return registers
    }
}

/// A reading position as one last-writer-wins register.
struct PositionRegister: Equatable {
    let document: String
    var position: TextPosition
    var clock: ClockStamp

    /// Applies a `set` change; an older one is ignored. Returns whether it won.
    mutating func apply(_ change: Change) -> Bool {
        guard let position = change.fields.position, change.stamp > clock else { return false }
        self.position = position
        clock = change.stamp
        return true
    }
}

// MARK: - Clock text

extension ClockStamp {
    /// `"<hlc> <device> <change id>"`; device and change ids never hold spaces (see `Identifiers`).
    var text: String {
        var text = hlc.description
        text.reserveCapacity(23 + device.utf8.count + changeID.utf8.count)
        text += " "
        text += device
        text += " "
        text += changeID
        return text
    }

    init?(text: String) {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, let hlc = HLC(String(parts[0])) else { return nil }
        self.init(hlc: hlc, device: String(parts[1]), changeID: String(parts[2]))
    }
}
