/// One field a change set: the value it met in the store, the value it set, and whether that value was taken.
public struct FieldTransition: Hashable, Sendable {
    /// The field (its register).
    public var register: Register
    /// The field's value when the change reached the store; when the change lost, the value that stayed.
    public var previous: FieldValue
    /// The value the change set.
    public var value: FieldValue
    /// When the change lost the merge (the field held a value with a newer clock): that value's change id.
    public var keptBy: String?

    /// Whether the field kept a newer value instead of the change's.
    public var lost: Bool { keptBy != nil }
}
