import Foundation
import Testing

/// The short id the tool should print for `id`, worked out from the ids alone, not by the store's code: the
/// shortest prefix of at least 8 characters that no other of `ids` starts with, ignoring ASCII case; the whole
/// id when every shorter prefix starts another.
func expectedShortID(_ id: String, among ids: [String]) -> String {
    let others = ids.filter { $0 != id }.map { $0.lowercased() }
    for length in 8..<max(8, id.count) {
        let prefix = String(id.prefix(length))
        if !others.contains(where: { $0.hasPrefix(prefix.lowercased()) }) { return prefix }
    }
    return id
}

/// The ids a store holds, as the tool's `--json` output lists them whole.
extension CLIWorkspace {
    /// Every annotation's id, deleted ones too.
    func annotationIDs(_ extra: [String] = []) throws -> [String] {
        let listed = try #require(try run(["list", "--json", "--deleted"] + extra).json() as? [[String: Any]])
        return listed.compactMap { $0["id"] as? String }
    }

    /// Every change's id, and every device's that made one, from the log.
    func changeAndDeviceIDs(_ extra: [String] = []) throws -> (changes: [String], devices: [String]) {
        let log = try #require(try run(["log", "--json"] + extra).json() as? [[String: Any]])
        return (log.compactMap { $0["changeId"] as? String }, Array(Set(log.compactMap { $0["device"] as? String })))
    }
}
