import Foundation
import MarginaliaTestSupport
import Testing

/// Rosters through the binary: stores that sync through one folder belong to its roster, which the first store to
/// sync there (or to invite) founds; another store joins it before it meets the others there.
extension CLIWorkspace {
    /// Runs `device invite FILE` on `member` (founding its roster when it has none), under `faketime` at
    /// `milliseconds` when given; the invitation file's path, a new one each time (the command refuses to replace a
    /// file).
    func invite(by member: String, at milliseconds: Int64? = nil) throws -> String {
        let file = path("invitation-\(UUID().uuidString).json")
        try step(["--store", member, "device", "invite", file], at: milliseconds)
        return file
    }

    /// Admits `store` to the roster of `member` through `folder`: `device invite FILE` on the member, `device join
    /// FILE` on the store, then `sync FOLDER` on the store (it asks to be admitted) and on the member (it admits
    /// it). The store learns it is admitted at its next round. Returns what the member's round printed.
    @discardableResult
    func admit(_ store: String, by member: String, folder: String, at milliseconds: Int64? = nil) throws -> String {
        let invitation = try invite(by: member, at: milliseconds)
        try step(["--store", store, "device", "join", invitation], at: milliseconds)
        try step(["--store", store, "sync", folder], at: milliseconds)
        return try step(["--store", member, "sync", folder], at: milliseconds)
    }

    /// A command that must succeed, under `faketime` when a time is given; its stdout without the final line feed.
    @discardableResult
    private func step(_ arguments: [String], at milliseconds: Int64?) throws -> String {
        guard let milliseconds else { return try ok(arguments) }
        return try ok(at: milliseconds, arguments).stdout.trimmingCharacters(in: .newlines)
    }
}
