// MARK: - Annotations

extension StoreConnection {
    /// The annotation with this id, or with this unique id prefix (at least 4 characters), deleted or not.
    /// - Throws: `StoreError.annotationNotFound` or `.ambiguousID`.
    func annotation(id: String) throws -> Annotation {
        let fullID = try resolveAnnotationID(id)
        guard let registers = try projection.loadRegisters(id: fullID), let annotation = registers.annotation else {
            throw StoreError.annotationNotFound(id: id)
        }
        return annotation
    }

    /// The full id of the annotation `text` names: the id itself or a unique prefix of at least 4 characters,
    /// ignoring ASCII case.
    func resolveAnnotationID(_ text: String) throws -> String {
        try ids.resolve(text, kind: .annotation)
    }

    /// The annotations that match `filter`: in reading order when content is attached (document, passage,
    /// offset), else in the order they were made.
    func annotations(matching filter: AnnotationFilter = AnnotationFilter()) throws -> [Annotation] {
        let (conditions, arguments) = try self.conditions(of: filter)
        let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let columns = Projection.annotationColumns(of: "a")
        let sql = content == nil
            ? "SELECT \(columns) FROM annotations a \(whereClause) ORDER BY a.created_hlc, a.id"
            : """
                SELECT \(columns) FROM annotations a
                LEFT JOIN content.documents d ON d.id = a.document
                LEFT JOIN content.passages p ON p.id = a.start_passage
                \(whereClause)
                ORDER BY d.ord IS NULL, d.ord, p.ord IS NULL, p.ord, a.start_offset, a.created_hlc, a.id
                """
        return try db.fetchAll(sql: sql, arguments: StatementArguments(arguments), Annotation.init(row:))
    }

    /// Whether any of the annotations `ids` names matches `filter` now: what decides whether a commit that touched
    /// them may add to the annotations an app shows.
    func anyAnnotation(among ids: Set<String>, matching filter: AnnotationFilter) throws -> Bool {
        guard !ids.isEmpty else { return false }
        var (conditions, arguments) = try self.conditions(of: filter)
        conditions.append("a.id IN (SELECT value FROM json_each(?))")
        arguments.append(.text(try JSONWriter.encodeString(.array(ids.sorted().map(JSONValue.string)))))
        let sql = "SELECT 1 FROM annotations a WHERE " + conditions.joined(separator: " AND ") + " LIMIT 1"
        return try db.int(sql: sql, arguments: StatementArguments(arguments)) != nil
    }

    /// The SQL conditions on `annotations a` that `filter` sets, and their arguments.
    private func conditions(of filter: AnnotationFilter) throws -> (conditions: [String], arguments: [DatabaseValue]) {
        var conditions: [String] = []
        var arguments: [DatabaseValue] = []
        if !filter.includeDeleted { conditions.append("a.deleted = 0") }
        if let document = filter.document {
            conditions.append("a.document = ?")
            arguments.append(.text(document))
        }
        if let passage = filter.passage {
            conditions.append("(a.start_passage = ? OR a.end_passage = ?)")
            arguments += [.text(passage), .text(passage)]
        }
        if let kind = filter.kind {
            conditions.append("a.kind = ?")
            arguments.append(.text(kind.rawValue))
        }
        if let tag = filter.tag {
            // Every spelling of the tag the store holds, bound as one JSON array.
            let spellings = try tagSpellings(matching: tag)
            conditions.append("""
                EXISTS (SELECT 1 FROM json_each(a.tags) WHERE json_each.value IN (SELECT value FROM json_each(?)))
                """)
            arguments.append(.text(try JSONWriter.encodeString(.array(spellings.map(JSONValue.string)))))
        }
        return (conditions, arguments)
    }

    /// The tags as stored (deleted annotations' too) that are `tag` when case and diacritics are ignored as search
    /// ignores them (cedilla ş/ţ and comma-below ș/ț alike): `tara` finds `ţară`, `Țara` and `tara`.
    func tagSpellings(matching tag: String) throws -> [String] {
        let wanted = Self.tagKey(tag)
        var spellings = Set<String>()
        // The distinct tag lists are few even among many annotations, and far quicker to read than every tag
        // through json_each (about 40 ms against 250 ms for 100,000 tagged annotations).
        try db.forEachRow(sql: "SELECT DISTINCT tags FROM annotations WHERE tags != '[]'") { row in
            guard case .array(let values)? = try? JSONParser.parse(try row.string(0)) else {
                throw StoreError.corruptRow(reason: "an annotation's tags are not a JSON array")
            }
            for case .string(let spelling) in values where Self.tagKey(spelling) == wanted {
                spellings.insert(spelling)
            }
        }
        return spellings.sorted()
    }

    /// What two tags must share to be the same tag to a reader.
    static func tagKey(_ tag: String) -> String {
        FoldedText(tag, level: .letters).string
    }

    /// How many annotations there are: live ones and tombstones.
    func annotationCounts() throws -> (live: Int, deleted: Int) {
        let live = try db.int(sql: "SELECT count(*) FROM annotations WHERE deleted = 0") ?? 0
        let deleted = try db.int(sql: "SELECT count(*) FROM annotations WHERE deleted = 1") ?? 0
        return (Int(live), Int(deleted))
    }
}

// MARK: - History

extension StoreConnection {
    /// Every change to one annotation, oldest first (by clock).
    func history(id: String) throws -> [Change] {
        // An annotation a partial archive's changes still wait for has changes but no row yet.
        let fullID: String
        do {
            fullID = try resolveAnnotationID(id)
        } catch StoreError.annotationNotFound {
            fullID = id
        }
        let changes = try log.changes(of: .annotation, id: fullID)
        guard !changes.isEmpty else { throw StoreError.annotationNotFound(id: id) }
        return changes
    }

    /// The change log, oldest first, filtered; with a limit, the most recent `limit` changes.
    func log(_ filter: LogFilter = LogFilter()) throws -> [Change] {
        var conditions: [String] = []
        var arguments: [DatabaseValue] = []
        // A change's time is when it was made (`Change.madeAt`). Its clock is never behind that (the clock that
        // stamped it had read the wall clock too), so `since` bounds the clock as well, which its index serves.
        if let since = filter.since {
            conditions.append("hlc >= ? AND \(ChangeLog.madeAt) >= ?")
            arguments += [.integer(HLC(milliseconds: max(0, since), counter: 0).packedBound), .integer(since)]
        }
        if let until = filter.until {
            conditions.append("\(ChangeLog.madeAt) < ?")
            arguments.append(.integer(until))
        }
        if let device = filter.device {
            conditions.append("device = (SELECT number FROM devices WHERE id = ?)")
            arguments.append(.text(try ids.resolve(device, kind: .device)))
        }
        let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        if let limit = filter.limit {
            arguments.append(.integer(Int64(limit)))
            let newest = try db.fetchAll(
                sql: """
                    SELECT \(Change.columns) FROM changes \(whereClause) \
                    ORDER BY \(Change.reverseClockOrder) LIMIT ?
                    """,
                arguments: StatementArguments(arguments), Change.init(row:))
            return newest.reversed()
        }
        return try db.fetchAll(
            sql: "SELECT \(Change.columns) FROM changes \(whereClause) ORDER BY \(Change.clockOrder)",
            arguments: StatementArguments(arguments), Change.init(row:))
    }
}
