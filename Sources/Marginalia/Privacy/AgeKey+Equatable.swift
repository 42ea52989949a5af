extension AgeIdentity: Equatable {
    /// Whether the two are the same secret key.
    public static func == (lhs: AgeIdentity, rhs: AgeIdentity) -> Bool { lhs.secretKey == rhs.secretKey }
}

extension AgeKey: Equatable {
    /// Whether the two are the same keys, or the same passphrase.
    public static func == (lhs: AgeKey, rhs: AgeKey) -> Bool {
        switch (lhs, rhs) {
        case (.recipients(let a), .recipients(let b)): return a == b
        case (.identities(let a), .identities(let b)): return a == b
        case (.passphrase(let a), .passphrase(let b)): return a == b
        default: return false
        }
    }
}
