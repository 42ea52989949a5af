/// The kinds of id the store makes and prints short: each is taken back whole or as a unique prefix.
package enum IDKind: String, Sendable, CaseIterable {
    /// An annotation's id (`annotations.id`).
    case annotation
    /// A device's id: this store's own, or one that made a change in its log.
    case device
    /// A change's id (`changes.change_id`).
    case change

    /// The noun in messages, singular or plural.
    func noun(_ count: Int = 1) -> String { count == 1 ? rawValue : rawValue + "s" }
}
