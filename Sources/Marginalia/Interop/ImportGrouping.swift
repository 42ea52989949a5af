import Foundation

/// One annotation an import makes: the item that began it, and the items that changed it later.
struct ImportGroup {
    /// The first clipping of it.
    var first: ImportItem
    /// Later clippings of the same highlight, resized, in file order.
    var revisions: [ImportItem] = []
    /// Notes made on it: their text, when, where the source says they are, and the line of the file they are on.
    var notes: [(text: String, date: Int64?, location: ItemLocation, line: Int)] = []

    /// The text as it stands after the last revision.
    var text: String { revisions.last?.text ?? first.text }
    /// Where it ends in the source's locations, after the last revision.
    var endLocation: Int? {
        let last = revisions.last ?? first
        return last.location.end ?? last.location.start
    }
}

/// Groups the items of one book into annotations: a highlight clipped again at the same start with a text that
/// contains the old one (or is contained in it) was resized, and is one annotation; a note whose location is where
/// a highlight ends is that highlight's note; the same clipping twice is one.
///
/// The groups go into the import's scratch database (`grp`, a row per annotation with what the next items are
/// matched by; `member`, its revisions and notes), so that a book of any size is grouped in the memory of one item.
/// Each lookup goes through an index (by start, by end, by page, by what was seen), so that grouping takes time in
/// proportion to the items, not to their square.
struct ImportGrouping {
    let books: ImportBooks
    let book: ImportBooks.Book
    private var db: SQLiteDatabase { books.scratch.db }

    /// Groups the items of `book`, replacing the groups of the book before; counts in `report` the highlights
    /// resized and the notes on highlights.
    /// - Returns: the grouping, and whether every item of the book is a W3C annotation.
    static func group(_ book: ImportBooks.Book, of books: ImportBooks, report: inout InteropImportReport) throws
        -> (grouping: ImportGrouping, allW3C: Bool)
    {
        try books.scratch.clearBook()
        let grouping = ImportGrouping(books: books, book: book)
        var allW3C = true
        try books.forEachItem(of: book) { seq, item in
            allW3C = allW3C && item.format == .w3c
            switch item.kind {
            case .highlight: try grouping.add(highlight: item, at: seq, report: &report)
            case .note: try grouping.add(note: item, at: seq, report: &report)
            case .bookmark:
                let key = "b\u{1F}\(item.note ?? "")\u{1F}\(item.note == nil)\u{1F}\(item.location.label)"
                if try grouping.firstSeen(key) { try grouping.insertGroup(of: item, at: seq) }
            }
        }
        return (grouping, allW3C)
    }

    private func add(highlight item: ImportItem, at seq: Int64, report: inout InteropImportReport) throws {
        let text = FoldedText(item.text, level: .words).string
        let place = Self.startKey(item.location)
        var found: (id: Int64, folded: String)?
        if let place {
            try db.iterateRows(sql: "SELECT id, folded FROM grp WHERE start_key = ? ORDER BY id DESC",
                               arguments: [place]) { row in
                let folded = try row.string(1)
                guard text.contains(folded) || folded.contains(text) else { return true }
                found = (try row.int64(0), folded)
                return false
            }
        }
        if let found {
            if found.folded != text {
                try db.execute(sql: "INSERT INTO member (grp, item) VALUES (?, ?)", arguments: [found.id, seq])
                try db.execute(sql: "UPDATE grp SET folded = ?, end_location = ?, latest = ? WHERE id = ?",
                               arguments: [text, item.location.end ?? item.location.start, seq, found.id])
                report.resized += 1
            } else {
                try db.execute(sql: "UPDATE grp SET latest = ? WHERE id = ?", arguments: [seq, found.id])
            }
            if let note = item.note, try addNote(note, at: seq, to: found.id) { report.notesOnHighlights += 1 }
            return
        }
        let id = try insertGroup(of: item, at: seq, place: place, folded: text)
        // A note the source writes with its highlight (KOReader, Readwise, W3C) is a note on it too.
        if let note = item.note, try addNote(note, at: seq, to: id) { report.notesOnHighlights += 1 }
    }

    private func add(note item: ImportItem, at seq: Int64, report: inout InteropImportReport) throws {
        guard let note = item.note, !note.isEmpty else { return }
        let target: Int64?
        if let start = item.location.start {
            target = try db.int(sql: "SELECT max(id) FROM grp WHERE end_location = ?", arguments: [start])
        } else if let page = item.location.page {
            // Notes on a page attach to what came before.
            target = try db.int(sql: "SELECT max(id) FROM grp WHERE page = ? AND latest < ?", arguments: [page, seq])
        } else {
            target = nil
        }
        if let target {
            if try addNote(note, at: seq, to: target) { report.notesOnHighlights += 1 }
            return
        }
        guard try firstSeen("n\u{1F}\(note)\u{1F}\(item.location.label)") else { return }
        try insertGroup(of: item, at: seq)
    }

    /// Adds a group that `item` begins: a highlight is found again by its start (`place`), its end, and its page
    /// when it has no location; a note or a bookmark is never found again.
    @discardableResult
    private func insertGroup(of item: ImportItem, at seq: Int64, place: String? = nil, folded: String = "") throws
        -> Int64
    {
        let highlight = item.kind == .highlight
        try db.execute(
            sql: """
                INSERT INTO grp (first, highlight, sample, start_key, end_location, page, latest, folded)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [seq, highlight, highlight && item.text.unicodeScalars.count >= 12, place,
                        highlight ? item.location.end ?? item.location.start : nil,
                        highlight && item.location.start == nil ? item.location.page : nil, seq, folded])
        return db.lastInsertRowID
    }

    /// Adds a note to a group; false when it is empty or the group has it already.
    private func addNote(_ note: String, at seq: Int64, to group: Int64) throws -> Bool {
        guard !note.isEmpty else { return false }
        guard try db.int(sql: "SELECT 1 FROM member WHERE grp = ? AND note = ?", arguments: [group, note]) == nil
        else { return false }
        try db.execute(sql: "INSERT INTO member (grp, item, note) VALUES (?, ?, ?)", arguments: [group, seq, note])
        return true
    }

    /// Whether `key` is seen for the first time in this book.
    private func firstSeen(_ key: String) throws -> Bool {
        try db.execute(sql: "INSERT OR IGNORE INTO seen (key) VALUES (?)", arguments: [key])
        return db.changedRowCount == 1
    }

    /// Where a clipping starts, in the source's terms: its first location, else its page.
    private static func startKey(_ location: ItemLocation) -> String? {
        if let start = location.start { return "location \(start)" }
        return location.page.map { "page \($0)" }
    }
}

// MARK: - Reading the groups back

extension ImportGrouping {
    /// Gives `body` each group, in the order the items that began them were read.
    func forEachGroup(_ body: (ImportGroup) throws -> Void) throws {
        var after: Int64 = 0
        while true {
            // A page of groups at a time, so that no query is open while `body` reads the scratch database.
            let page = try db.fetchAll(sql: "SELECT id, first FROM grp WHERE id > ? ORDER BY id LIMIT 256",
                                       arguments: [after]) { (try $0.int64(0), try $0.int64(1)) }
            guard let last = page.last else { return }
            after = last.0
            for (id, first) in page { try body(try group(id, first: first)) }
        }
    }

    private func group(_ id: Int64, first: Int64) throws -> ImportGroup {
        let packed = try db.fetchOne(sql: "SELECT packed FROM item WHERE seq = ?", arguments: [first]) {
            try PackedItem.unpack($0.bytes(at: 0), title: book.title, author: book.author)
        }
        guard let packed else { throw StoreError.corruptRow(reason: "an import's group lost its first item") }
        var group = ImportGroup(first: packed)
        try db.forEachRow(
            sql: """
                SELECT member.note, item.packed FROM member JOIN item ON item.seq = member.item
                WHERE member.grp = ? ORDER BY member.id
                """,
            arguments: [id]
        ) { row in
            let item = try PackedItem.unpack(row.bytes(at: 1), title: book.title, author: book.author)
            if let note = row.optionalString(0) {
                group.notes.append((note, item.date, item.location, item.line))
            } else {
                group.revisions.append(item)
            }
        }
        return group
    }

    /// The text of the first item of every group begun by a highlight of a dozen letters or more, in order.
    func forEachSampleText(_ body: (_ index: Int, _ count: Int, _ text: String) throws -> Void) throws {
        let count = Int(try db.int(sql: "SELECT count(*) FROM grp WHERE sample") ?? 0)
        var index = 0
        try db.forEachRow(sql: "SELECT item.packed FROM grp JOIN item ON item.seq = grp.first WHERE grp.sample "
                          + "ORDER BY grp.id") { row in
            try body(index, count, try PackedItem.unpack(row.bytes(at: 0), title: book.title, author: book.author).text)
            index += 1
        }
    }

    /// How many highlights the groups hold: the first item of each group of a highlight, and every revision.
    func highlightCount() throws -> Int {
        Int(try db.int(sql: """
            SELECT (SELECT count(*) FROM grp WHERE highlight) + (SELECT count(*) FROM member WHERE note IS NULL)
            """) ?? 0)
    }

    /// Gives `body` every highlight of the groups, in order: each group's first item, then its revisions.
    func forEachHighlight(_ body: (ImportItem) throws -> Void) throws {
        try db.forEachRow(
            sql: """
                SELECT item.packed FROM (
                    SELECT id AS grp, 0 AS ord, first AS seq FROM grp WHERE highlight
                    UNION ALL SELECT grp, id, item FROM member WHERE note IS NULL
                ) AS h JOIN item ON item.seq = h.seq ORDER BY h.grp, h.ord
                """
        ) { row in
            try body(try PackedItem.unpack(row.bytes(at: 0), title: book.title, author: book.author))
        }
    }
}
