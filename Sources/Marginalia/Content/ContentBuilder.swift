import Foundation

/// Builds a content database from a content source.
package enum ContentBuilder {
    /// The content schema version `build` writes.
    package static var schemaVersion: Int32 { ContentSchema.version }

    /// Builds the content database for `source` at `output`.
    ///
    /// The database is written to a temporary file beside `output`, flushed to disk and renamed over it, so
    /// `output` is either the old file or the complete new one. Building the same source twice gives the same
    /// tables (nothing time-dependent is stored). The target is checked first (`OutputTarget`): a store or any
    /// other database is refused, an existing content database or file is replaced only with `force`.
    /// - Parameters:
    ///   - force: replace an existing content database or plain file.
    ///   - protecting: a store whose files must not be replaced (the one the command line names).
    /// - Returns: what the new database holds.
    /// - Throws: `OutputRefusal`, `SQLiteError` or a file-system error; the temporary file is removed.
    @discardableResult
    ///   - lemmas: a lemma table (see `Vocabulary`) whose lemmas the word forms are recorded with, beside their
    ///     stems.
    package static func build(_ source: ContentSource, output: String, force: Bool = false,
                             protecting store: String? = nil, lemmas: String? = nil,
                             progress: ProgressHandler? = nil) throws -> ContentInfo
    {
        try PrivateFiles.createDirectories(FileSync.parentDirectory(of: output))
        let target = try OutputTarget.resolve(
            output, policy: OutputTarget.Policy(force: force, replaceContent: true, store: store))
        try target.write(purpose: "content") { temporary in
            try write(source, to: temporary.path, lemmas: lemmas, progress: progress)
        }
        return ContentInfo(
            path: output, edition: source.edition, language: source.language, title: source.title,
            documentCount: source.documents.count, passageCount: source.documents.reduce(0) { $0 + $1.passages.count },
            recordsForms: true)
    }

    private static func write(_ source: ContentSource, to path: String, lemmas: String?,
                              progress: ProgressHandler?) throws {
        let db = try SQLiteDatabase(path: path, mode: .readWriteCreate)
        // A fresh scratch file that is renamed into place only when complete needs no rollback journal.
        try db.executeScript(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
        var vocabulary = Vocabulary(language: source.language)
        try db.transaction(.immediate) {
            try db.executeScript(sql: ContentSchema.sql)
            try db.executeScript(sql: """
                PRAGMA application_id = \(ContentSchema.applicationID);
                PRAGMA user_version = \(ContentSchema.version);
                """)
            try db.execute(
                sql: "INSERT INTO meta (key, value) VALUES ('edition', ?), ('language', ?), ('title', ?)",
                arguments: [source.edition, source.language, source.title])
            for (documentOrder, document) in source.documents.enumerated() {
                if documentOrder > 0 && documentOrder % 100 == 0 {
                    if Task.isCancelled
                        || progress?(ProgressReport(task: "building", done: documentOrder,
                                                    total: source.documents.count)) == .stop {
                        throw CancellationError()
                    }
                }
                try db.execute(
                    sql: "INSERT INTO documents (id, title, ord) VALUES (?, ?, ?)",
                    arguments: [document.id, document.title, documentOrder])
                for (order, passage) in document.passages.enumerated() {
                    try db.execute(
                        sql: "INSERT INTO passages (id, document_id, ord, text) VALUES (?, ?, ?, ?)",
                        arguments: [passage.id, document.id, order, passage.text])
                    try db.execute(
                        sql: "INSERT INTO passages_fts (rowid, text) VALUES (last_insert_rowid(), ?)",
                        arguments: [SearchText.indexable(passage.text)])
                    vocabulary.add(passage.text)
                }
            }
            if let lemmas { try vocabulary.addLemmas(from: lemmas) }
            try vocabulary.write(to: db)
        }
        // Merge the index's segments into one: "optimize … merges all existing index structures into a
        // single large b-tree … the fastest to query" https://www.sqlite.org/fts5.html#the_optimize_command
        try db.execute(sql: "INSERT INTO passages_fts (passages_fts) VALUES ('optimize')")
        try db.executeScript(sql: "VACUUM")
    }
}
