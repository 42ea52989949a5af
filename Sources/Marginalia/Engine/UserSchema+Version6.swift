// MARK: - Version 6: the wall time beside the clock

extension UserSchema {
    /// Version 6: each change keeps, beside the HLC that orders it, the wall time of the machine that made it
    /// (`Change.wall`, milliseconds since 1970): what the log, the history and the exports show as its time, and
    /// what a received change is judged by when it is dated ahead. The log and the quarantine gain the column;
    /// the changes recorded before keep none (NULL), and their digests stay as they were (`ChangeDigest`).
    ///
    /// "The ALTER TABLE ADD COLUMN … The new column is always appended to the end of the list of existing
    /// columns" and only rewrites the schema's text, not the rows https://www.sqlite.org/lang_altertable.html.
    static let version6 = """
        ALTER TABLE changes ADD COLUMN wall INTEGER CHECK (wall >= 0);
        ALTER TABLE quarantine ADD COLUMN wall INTEGER CHECK (wall >= 0);
        """
}
