/// A field where a merged change lost to a newer value already in the store (last writer wins, by clock then
/// device id). The losing value stays in the log, so `marginalia history` still shows it.
///
/// A conflict is reported by the store that receives the losing change: when two machines edit one note, the
/// machine whose edit is older takes the newer one as an ordinary update, and the other lists the older edit here.
public struct MergeConflict: Equatable, Sendable {
    /// The annotation the field belongs to; for a reading position, the document's id.
    public var id: String
    /// `note`, `color`, `deleted`, `anchor`, `tag:<name>`, or `position`.
    public var field: String
    /// The value the merged change set, which lost ("" for a cleared note or color).
    public var lostValue: String
    /// The value kept (nil: none, e.g. a cleared note).
    public var keptValue: String?
    /// The change that lost.
    public var lostChangeID: String
    /// The device that made the change that lost.
    public var lostDevice: String?

    /// A conflict over `field` of annotation (or document) `id`.
    package init(id: String, field: String, lostValue: String, keptValue: String?, lostChangeID: String,
                 lostDevice: String? = nil) {
        self.id = id
        self.field = field
        self.lostValue = lostValue
        self.keptValue = keptValue
        self.lostChangeID = lostChangeID
        self.lostDevice = lostDevice
    }

    /// The most conflicts a report lists; its count covers all of them.
    package static let listedLimit = 100
}

extension MergeConflict {
    /// The conflicts of a change that lost `registers` (names as `AnnotationRegisters.clocks` keys them) to the
    /// values of `current`.
    static func lost(_ registers: [String], by change: Change, to current: AnnotationRegisters) -> [MergeConflict] {
        let fields = change.fields
        return registers.compactMap { name in
            let lost: String?
            let kept: String?
            switch name {
            case "note": (lost, kept) = (fields.note, current.note)
            case "color": (lost, kept) = (fields.color, current.color)
            case "deleted": (lost, kept) = (fields.deleted.map { "\($0)" }, "\(current.deleted)")
            case "anchor": (lost, kept) = (fields.anchor.map(describe), current.anchor.map(describe))
            case "kind": (lost, kept) = (fields.kind?.rawValue, current.kind?.rawValue)
            default:
                guard name.hasPrefix("tag:") else { return nil }
                let tag = String(name.dropFirst(4))
                (lost, kept) = (fields.tags[tag].map(describe), current.tags[tag].map(describe))
            }
            guard let lost else { return nil }
            return MergeConflict(id: change.entityID, field: name, lostValue: lost, keptValue: kept,
                                 lostChangeID: change.changeID, lostDevice: change.device)
        }
    }

    /// A position change that lost to the newer position `kept` of its document.
    static func lostPosition(_ change: Change, to kept: TextPosition) -> MergeConflict? {
        guard let position = change.fields.position else { return nil }
        return MergeConflict(id: change.entityID, field: "position", lostValue: describe(position),
                             keptValue: describe(kept), lostChangeID: change.changeID, lostDevice: change.device)
    }

    private static func describe(_ present: Bool) -> String { present ? "present" : "removed" }

    private static func describe(_ position: TextPosition) -> String { "\(position.passage)+\(position.offset)" }

    private static func describe(_ anchor: Anchor) -> String {
        "\(describe(anchor.start))..\(describe(anchor.end)) «\(anchor.quote)»"
    }
}
