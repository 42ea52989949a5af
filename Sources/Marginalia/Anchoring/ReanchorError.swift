/// Why re-anchoring onto the attached content was refused; nothing was written.
package enum ReanchorError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The attached edition is older (see `EditionOrder`) than one the annotations were reconciled with or
    /// anchored on: re-anchoring would move them back and undo what was done on the newer edition.
    case olderEdition(attached: String, newer: String)
    /// The attached content has none of the passages the store's annotations are anchored in: it is another
    /// work, and re-anchoring onto it would orphan every annotation.
    case differentWork(attached: String, anchored: String)

    /// The refusal in words, naming the editions.
    package var description: String {
        switch self {
        case .olderEdition(let attached, let newer):
            return "the content is edition \(attached), older than edition \(newer) that the annotations were "
                + "reconciled with; re-anchoring would move them back (give edition \(newer) or newer with --content, "
                + "or --allow-older to re-anchor anyway); nothing was written"
        case .differentWork(let attached, let anchored):
            return "the content (edition \(attached)) has none of the passages of the annotations (anchored on "
                + "edition \(anchored)): it is another work (give the right content with --content, or "
                + "--allow-older to re-anchor anyway); nothing was written"
        }
    }
}
