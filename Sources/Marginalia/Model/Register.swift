/// One register of an annotation: the unit that last-writer-wins merges, each with its own clock.
public enum Register: Hashable, Sendable, CustomStringConvertible {
    case kind
    case anchor
    case note
    case color
    case deleted
    /// Whether the annotation carries this tag.
    case tag(String)

    /// The register in words, e.g. `note` or `tag poetry`.
    public var description: String {
        switch self {
        case .kind: return "kind"
        case .anchor: return "anchor"
        case .note: return "note"
        case .color: return "color"
        case .deleted: return "deleted"
        case .tag(let name): return "tag \(name)"
        }
    }
}
