/// Receives progress reports; called on the thread doing the work, every so many items.
public typealias ProgressHandler = @Sendable (ProgressReport) -> ProgressVerdict
