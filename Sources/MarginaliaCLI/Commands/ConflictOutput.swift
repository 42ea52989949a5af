import Marginalia

/// How import and sync reports show the conflicts a merge resolved: which field of which annotation, the value
/// kept and the value that lost (which stays in `history`).
enum ConflictOutput {
    /// One line per listed conflict, and a line for those not listed; the device that made the losing change is
    /// named when it has a name (`names`, by device id).
    static func lines(_ conflicts: [MergeConflict], total: Int, names: [String: String] = [:]) -> [String] {
        var lines = conflicts.map { conflict in
            let kept = conflict.keptValue.map(quoted) ?? "none"
            let by = conflict.lostDevice.flatMap { names[$0] }.map { " by \($0)" } ?? ""
            return "conflict: \(conflict.id) \(conflict.field): kept \(kept), lost \(quoted(conflict.lostValue)) "
                + "(change \(conflict.lostChangeID)\(by), still in history)"
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
                ("lostDevice", conflict.lostDevice.map(JSONValue.string) ?? .null),
            ]))
        })
    }

    /// A value in «guillemets», on one line and shortened as quotes are elsewhere (`Output.excerpt`).
    private static func quoted(_ value: String) -> String { "«\(Output.excerpt(value, limit: 120))»" }
}
