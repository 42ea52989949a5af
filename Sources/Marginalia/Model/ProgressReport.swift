/// How far a long operation (an export, an import, a content build, an anchor check) has come.
public struct ProgressReport: Equatable, Sendable {
    /// What is being done, e.g. "exporting", "importing", "checking anchors".
    public var task: String
    /// Items done so far (records, changes, annotations, documents).
    public var done: Int
    /// All the items, when known in advance.
    public var total: Int?

    /// Progress of `task`: `done` of `total` (nil when the total is not known).
    package init(task: String, done: Int, total: Int? = nil) {
        self.task = task
        self.done = done
        self.total = total
    }
}
