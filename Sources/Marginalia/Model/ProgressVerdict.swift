/// What a progress handler wants the work to do next.
public enum ProgressVerdict: Sendable {
    /// Go on.
    case proceed
    /// Stop: the work throws `MarginaliaError` of category `.cancelled`, and a write is rolled back whole. (An
    /// archive import merged in steps stops only until its first step; from then on it runs to its end.)
    case stop
}
