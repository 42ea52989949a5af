/// Where the highlights of one book were placed in the content, kept in the import's scratch database: a row per
/// distinct highlight (`placement`: its text at its place in the source, what was found, and where in the content
/// as one number when it is one place), a row per highlight in order (`highlight`), and the (location, offset)
/// pairs of those placed once (`known`), in location order through an index.
struct ImportPlacements {
    let db: SQLiteDatabase

    /// What a placement row's `state` says.
    private enum State: Int64 {
        case anchored = 0, ambiguous, unplaced
    }

    /// The placement of a highlight's text at its place in the source; nil when it was not looked for.
    func placement(of item: ImportItem) throws -> TextPlacement? {
        try db.fetchOne(sql: "SELECT state, value FROM placement WHERE key = ?", arguments: [Self.key(item)]) {
            try Self.unpack(state: try $0.int64(0), $0.bytes(at: 1))
        }
    }

    /// Whether any highlight's text was found in the content, once or more.
    func anyFound() throws -> Bool {
        try db.int(sql: "SELECT EXISTS (SELECT 1 FROM placement WHERE state != ?)",
                    arguments: [State.unplaced.rawValue]) == 1
    }

    /// The row of the placement of `item`'s text at its place, when it was looked for.
    func id(of item: ImportItem) throws -> Int64? {
        try db.int(sql: "SELECT id FROM placement WHERE key = ?", arguments: [Self.key(item)])
    }

    /// Records where `item`'s text was found (`offset`: where, as one number, when it is one place).
    func insert(_ placement: TextPlacement, of item: ImportItem, offset: Int?) throws -> Int64 {
        let (state, value) = Self.pack(placement)
        try db.execute(sql: "INSERT INTO placement (key, state, value, offset) VALUES (?, ?, ?, ?)",
                       arguments: [Self.key(item), state.rawValue, value, offset])
        return db.lastInsertRowID
    }

    /// Replaces the placement of row `id` by one place.
    func update(_ id: Int64, to anchor: Anchor, offset: Int) throws {
        let (state, value) = Self.pack(.anchored(anchor))
        try db.execute(sql: "UPDATE placement SET state = ?, value = ?, offset = ? WHERE id = ?",
                       arguments: [state.rawValue, value, offset, id])
    }

    /// Adds the next highlight, placed as row `placement` says.
    func addHighlight(_ item: ImportItem, placement: Int64) throws {
        try db.execute(sql: "INSERT INTO highlight (placement, location, prefix, suffix) VALUES (?, ?, ?, ?)",
                       arguments: [placement, item.location.start, item.prefix, item.suffix])
    }

    /// Gives `body` each highlight whose text is ambiguous, in order, with its placement row: `withContext`, those
    /// with a prefix or suffix, else those with a location.
    func forEachAmbiguous(withContext: Bool, _ body: (_ id: Int64, _ highlight: AmbiguousHighlight) throws -> Void)
        throws
    {
        var after: Int64 = 0
        while true {
            // A page at a time, so that no query is open while `body` updates placements.
            let page = try db.fetchAll(
                sql: """
                    SELECT highlight.id, placement.id, highlight.location, highlight.prefix, highlight.suffix
                    FROM highlight
                    JOIN placement ON placement.id = highlight.placement
                    WHERE highlight.id > ? AND placement.state = ?
                        AND (CASE WHEN ?3 THEN highlight.prefix IS NOT NULL OR highlight.suffix IS NOT NULL
                             ELSE highlight.location IS NOT NULL END)
                    ORDER BY highlight.id LIMIT 256
                    """,
                arguments: [after, State.ambiguous.rawValue, withContext]
            ) { row in
                (try row.int64(0), try row.int64(1), row.optionalInt(2), row.optionalString(3), row.optionalString(4))
            }
            guard let last = page.last else { return }
            after = last.0
            for (_, placement, location, prefix, suffix) in page {
                // Read again: an earlier highlight of the same text may have settled it.
                let anchors = try db.fetchOne(sql: "SELECT state, value FROM placement WHERE id = ?",
                                              arguments: [placement]) { row -> [Anchor]? in
                    guard case .ambiguous(let anchors) = try Self.unpack(state: try row.int64(0), row.bytes(at: 1))
                    else { return nil }
                    return anchors
                }
                guard let anchors = anchors ?? nil else { continue }
                try body(placement, AmbiguousHighlight(location: location, prefix: prefix, suffix: suffix,
                                                       anchors: anchors))
            }
        }
    }

    /// Records the (location, offset) pairs of the highlights with a location placed at one place, in the order
    /// of the highlights.
    func recordKnown() throws {
        try db.execute(
            sql: """
                INSERT INTO known (location, offset) SELECT highlight.location, placement.offset FROM highlight
                JOIN placement ON placement.id = highlight.placement
                WHERE highlight.location IS NOT NULL AND placement.state = ? ORDER BY highlight.id
                """,
            arguments: [State.anchored.rawValue])
    }

    /// The known pair nearest below or at `location` (the last in highlight order of equal ones), and the nearest
    /// above or at it (the first), with the first and last of all in location order.
    func neighbours(of location: Double) throws -> (below: KnownPlace?, above: KnownPlace?, first: KnownPlace?,
                                                     last: KnownPlace?) {
        func one(_ sql: String, _ arguments: StatementArguments = []) throws -> KnownPlace? {
            try db.fetchOne(sql: sql, arguments: arguments) { (try $0.double(0), try $0.double(1)) }
        }
        return (
            try one("SELECT location, offset FROM known WHERE location <= ? ORDER BY location DESC, id DESC LIMIT 1",
                    [location]),
            try one("SELECT location, offset FROM known WHERE location >= ? ORDER BY location, id LIMIT 1",
                    [location]),
            try one("SELECT location, offset FROM known ORDER BY location, id LIMIT 1"),
            try one("SELECT location, offset FROM known ORDER BY location DESC, id DESC LIMIT 1"))
    }

    // MARK: - Bytes

    /// A highlight's text at its place in the source: the same text highlighted at two places is two highlights.
    private static func key(_ item: ImportItem) -> [UInt8] {
        var writer = PackedWriter()
        writer.put(item.text)
        writer.put(optional: item.location.start)
        writer.put(optional: item.location.end)
        writer.put(optional: item.location.page)
        writer.put(optional: item.prefix)
        writer.put(optional: item.suffix)
        return writer.bytes
    }

    private static func pack(_ placement: TextPlacement) -> (State, [UInt8]) {
        var writer = PackedWriter()
        func put(_ anchor: Anchor) {
            for text in [anchor.document, anchor.start.passage] { writer.put(text) }
            writer.put(anchor.start.offset)
            writer.put(anchor.end.passage)
            writer.put(anchor.end.offset)
            for text in [anchor.quote, anchor.prefix, anchor.suffix, anchor.edition] { writer.put(text) }
        }
        switch placement {
        case .anchored(let anchor):
            put(anchor)
            return (.anchored, writer.bytes)
        case .ambiguous(let anchors):
            writer.put(anchors.count)
            for anchor in anchors { put(anchor) }
            return (.ambiguous, writer.bytes)
        case .unplaced(let reason):
            writer.put(reason)
            return (.unplaced, writer.bytes)
        }
    }

    private static func unpack(state: Int64, _ bytes: UnsafeRawBufferPointer) throws -> TextPlacement {
        var reader = PackedReader(bytes)
        func anchor() throws -> Anchor {
            let document = try reader.string()
            let start = TextPosition(passage: try reader.string(), offset: try reader.int())
            let end = TextPosition(passage: try reader.string(), offset: try reader.int())
            return Anchor(document: document, start: start, end: end, quote: try reader.string(),
                          prefix: try reader.string(), suffix: try reader.string(), edition: try reader.string())
        }
        switch State(rawValue: state) {
        case .anchored: return .anchored(try anchor())
        case .ambiguous: return .ambiguous(try (0..<max(0, try reader.int())).map { _ in try anchor() })
        case .unplaced: return .unplaced(reason: try reader.string())
        case nil: throw StoreError.corruptRow(reason: "an import's scratch database holds an unknown placement")
        }
    }
}

/// A highlight whose text was found at several places: its location and context in the source, and the places.
struct AmbiguousHighlight {
    var location: Int?
    var prefix: String?
    var suffix: String?
    var anchors: [Anchor]
}

/// A highlight placed once: its location in the source and its offset in the content.
typealias KnownPlace = (location: Double, offset: Double)
