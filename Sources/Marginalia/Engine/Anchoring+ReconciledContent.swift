import Foundation

/// The content a store was last reconciled with: its edition, and its path when one was recorded.
package struct ReconciledContent: Equatable, Sendable {
    /// The content's edition, e.g. `eminescu-2026.2`.
    package var edition: String
    /// The content database's absolute path, when the content was given by path (not the bundled sample).
    package var path: String?

    /// The content of `edition`, found at `path` when one was recorded.
    package init(edition: String, path: String?) {
        self.edition = edition
        self.path = path
    }
}

// MARK: - The content last reconciled with

extension Anchoring {
    /// The content `reconcileAnchors(reanchor: true)` last ran against, if ever; kept in the `meta` table under
    /// `reconciled_edition` and `reconciled_content_path`.
    func reconciledContent() throws -> ReconciledContent? {
        guard let edition = try reconciledEdition() else { return nil }
        return ReconciledContent(
            edition: edition, path: try db.text(sql: "SELECT value FROM meta WHERE key = 'reconciled_content_path'"))
    }

    /// Every edition some annotation (deleted ones too) is anchored on, in no particular order.
    func anchoredEditions() throws -> [String] {
        try db.fetchAll(sql: "SELECT DISTINCT anchor_edition FROM annotations") { try $0.string(0) }
    }

    /// Refuses to re-anchor onto the attached content when it is older than an edition the annotations were
    /// reconciled with or anchored on, or when it shares no passage with them (another work).
    func checkReanchorTarget(_ content: ContentInfo) throws {
        let reconciled = try reconciledEdition()
        let anchored = try anchoredEditions()
        if let reconciled, EditionOrder.isOlder(content.edition, than: reconciled) {
            throw ReanchorError.olderEdition(attached: content.edition, newer: reconciled)
        }
        let newer = anchored.filter { EditionOrder.isOlder(content.edition, than: $0) }
        if let newest = newer.max(by: { EditionOrder.isOlder($0, than: $1) }) {
            throw ReanchorError.olderEdition(attached: content.edition, newer: newest)
        }
        guard let some = anchored.first else { return }
        let shared = try db.int(sql: """
            SELECT 1 FROM annotations WHERE start_passage IN (SELECT id FROM content.passages) LIMIT 1
            """)
        if shared == nil {
            throw ReanchorError.differentWork(
                attached: content.edition, anchored: reconciled ?? anchored.first(where: { $0 != content.edition }) ?? some)
        }
    }

    /// Records `content` as the content last reconciled with; its path (made absolute) when `recordingPath`,
    /// else none (the bundled sample, found again by its edition).
    func recordReconciled(_ content: ContentInfo, recordingPath: Bool) throws {
        try db.execute(
            sql: "INSERT INTO meta (key, value) VALUES ('reconciled_edition', ?) "
                + "ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE value != excluded.value",
            arguments: [content.edition])
        guard recordingPath else {
            try db.execute(sql: "DELETE FROM meta WHERE key = 'reconciled_content_path'")
            return
        }
        let path = content.path.hasPrefix("/")
            ? content.path : FileManager.default.currentDirectoryPath + "/" + content.path
        try db.execute(
            sql: "INSERT INTO meta (key, value) VALUES ('reconciled_content_path', ?) "
                + "ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE value != excluded.value",
            arguments: [path])
    }
}
