import Marginalia

/// How import and sync reports show the conflicts a merge resolved: which field of which annotation, the value
/// kept and the value that lost (which stays in `history`).
enum ConflictOutput {
    /// One line per listed conflict, and a line for those not listed.
    static func lines(_ conflicts: [MergeConflict], total: Int) -> [String] {
        var lines = conflicts.map { conflict in
            let kept = conflict.keptValue.map(quoted) ?? "none"
            return "conflict: \(conflict.id) \(conflict.field): kept \(kept), lost \(quoted(conflict.lostValue)) "
                + "(change \(conflict.lostChangeID), still in history)"
        }
        if total > conflicts.count { lines.append("… and \(total - conflicts.count) more conflict(s)") }
        return lines
    }

    /// The conflicts as JSON objects: `id`, `field`, `kept` (null for none), `lost`, `lostChangeId`.
    static func json(_ conflicts: [MergeConflict]) -> JSONValue {
        .array(conflicts.map { conflict in
            .object(JSONObject([
                ("id", .string(conflict.id)), ("field", .string(conflict.field)),
                ("kept", conflict.keptValue.map(JSONValue.string) ?? .null), ("lost", .string(conflict.lostValue)),
                ("lostChangeId", .string(conflict.lostChangeID)),
            ]))
        })
    }

    /// A value in «guillemets», on one line and shortened as quotes are elsewhere (`Output.excerpt`).
    private static func quoted(_ value: String) -> String { "«\(Output.excerpt(value, limit: 120))»" }
}
