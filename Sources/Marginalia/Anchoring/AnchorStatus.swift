/// Where an annotation stands against the attached content edition.
public enum AnchorStatus: String, Sendable, CaseIterable {
    /// Its quote is at its offsets.
    case intact
    /// Its quote, or a close match of it, is elsewhere in its passage or a neighbouring one (or at the same
    /// place, respelled): it can be re-anchored there.
    case moved
    /// Its passage is gone, or no acceptable match is left. It keeps its quote and note, and can be reattached.
    case orphaned
    /// No content is attached.
    case unchecked
}
