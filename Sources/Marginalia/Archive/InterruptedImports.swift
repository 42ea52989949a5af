/// What opening a store for writing did with the imports that processes had stopped midway (`PendingImport`).
struct InterruptedImports: Sendable {
    /// The archives whose imports were finished from their kept copies.
    var finished: [String] = []
    /// The imports whose kept copies could not be finished from, and were abandoned.
    var abandoned: [AbandonedImport] = []
}
