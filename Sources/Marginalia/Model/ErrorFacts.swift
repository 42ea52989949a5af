/// The facts an error names beside its words, as `MarginaliaError` gives them to an app: the file and line, the
/// field and the id at fault. Each is nil when the failure has none.
package struct ErrorFacts: Equatable, Sendable {
    package var file: String?
    package var line: Int?
    package var field: String?
    package var id: String?

    package init(file: String? = nil, line: Int? = nil, field: String? = nil, id: String? = nil) {
        self.file = file
        self.line = line
        self.field = field
        self.id = id
    }
}
