// MARK: - Building a table's indexes after loading it

extension Database {
    /// Runs `load` with the indexes declared on `table` by `CREATE INDEX` dropped, then creates them again from
    /// their own definitions; call it inside the write transaction, which undoes both if anything fails.
    ///
    /// Loading many rows into a table whose index keys come in random order puts every index insert on a random
    /// page; creating the index afterwards sorts the keys once and writes its pages in order. The indexes that
    /// back a `UNIQUE` or `PRIMARY KEY` constraint have no `sql` of their own ("The sqlite_schema.sql column
    /// stores SQL text that describes the object … NULL for the internal indexes that are automatically created
    /// by UNIQUE or PRIMARY KEY constraints" https://www.sqlite.org/schematab.html) and stay: they check the load.
    /// Other connections see the indexes as they were until the transaction commits.
    func buildingIndexesAfter<T>(on table: String, _ load: () throws -> T) throws -> T {
        let indexes = try fetchAll(
            sql: "SELECT name, sql FROM main.sqlite_schema WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
            arguments: [table]) { (name: try $0.string(0), sql: try $0.string(1)) }
        for index in indexes {
            let quoted = index.name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"")
            try execute(sql: "DROP INDEX main.\"\(quoted)\"")
        }
        let result = try load()
        for index in indexes { try execute(sql: index.sql) }
        return result
    }
}
