/// One validated record of an archive.
package enum ArchiveRecord: Equatable, Sendable {
    case header(ArchiveHeader)
    /// How changes of the writing store arrived there (format 4 on); before every change.
    case receipt(Receipt)
    /// A change, and the receipt it arrived by in the writing store (nil: made there, or not said).
    case change(Change, receipt: Int64?)
    /// A state record (an annotation or a reading position), as it stands in the file.
    case annotation(JSONObject)
    case position(JSONObject)
    /// An annotation's state record as its id and the text of its line (with `annotationsAsText`), not parsed:
    /// only its type, its id and its UTF-8 are checked. An import stages it so and compares it with the text of
    /// the record it rebuilds; a line that differs is parsed and checked then (`checkedAnnotation`), as reading
    /// the file would have done.
    case annotationText(id: String, text: String)
}

/// Reads an archive strictly, record by record, refusing anything that is not exactly a complete archive of
/// a version this build understands.
///
/// Records reach the handler as they are read; the archive is known good only when `read` returns. A caller
/// that writes must therefore do so in a transaction it commits only after `read` returns.
package struct ArchiveReader: Sendable {
    package let path: String
    package var limits: ArchiveLimits
    /// Hand each annotation's state record of a full archive as `.annotationText`, the text of its line, instead
    /// of `.annotation`: unparsed when it begins as this project's writer begins one, parsed and checked first
    /// otherwise. The caller must check each one (`checkedAnnotation`) unless its text is that of a record known to
    /// be good. A partial archive's are parsed and handed as ever: no state rebuilt from it is compared with them.
    package var annotationsAsText = false
    /// With `annotationsAsText`, hand only every other annotation state record unparsed (those on even lines), and
    /// parse and check the rest here: for a caller that checks the records it is handed on a thread of its own,
    /// which then shares the work of the state section with the reader's.
    package var halfOfAnnotationsAsText = false

    package init(path: String, limits: ArchiveLimits = ArchiveLimits()) {
        self.path = path
        self.limits = limits
    }

    /// Reads the whole archive, calling `handle` with each record and its line number.
    ///
    /// - Throws: `ArchiveError` naming the line and the reason; whatever `handle` throws.
    @discardableResult
    package func read(_ handle: (ArchiveRecord, Int) throws -> Void = { _, _ in }) throws -> ArchiveSummary {
        let file: FileSource
        do {
            file = try FileSource(path: path)
        } catch let error as IOError {
            throw ArchiveError(file: path, io: error)
        }
        defer { try? file.close() }
        let hashed = try HashingSource(file)
        let gzip: GzipReader
        do {
            gzip = try GzipReader(source: try ArchiveInput.plaintext(of: hashed, path: path, key: limits.key),
                                  maxDecompressedBytes: limits.maxDecompressedBytes)
        } catch let error as IOError {
            throw ArchiveError(file: path, io: error)
        }
        let lines = LineReader(source: gzip, maxLineBytes: limits.maxLineBytes)
        var parser = JSONParser(limits: Self.parserLimits(maxLineBytes: limits.maxLineBytes))
        var state = ReadState()
        do {
            while let line = try lines.next() {
                guard line.endsWithNewline else {
                    throw ArchiveError(file: path, line: line.number, kind: .truncated,
                                       reason: "truncated: the last line does not end with a line feed")
                }
                guard line.bytes.last != UInt8(ascii: "\r") else {
                    throw ArchiveError(file: path, line: line.number, kind: .invalidRecord,
                                       reason: "the line ends with CR LF; archive lines end with LF alone")
                }
                guard line.number <= limits.maxRecords else {
                    throw ArchiveError(file: path, line: line.number, kind: .tooLarge,
                                       reason: "more than \(limits.maxRecords) records")
                }
                let asText = annotationsAsText && state.header?.partial == false
                    && (!halfOfAnnotationsAsText || line.number % 2 == 0)
                if asText, let id = Self.annotationID(ofLine: line.bytes),
                   let text = String(validating: line.bytes, as: UTF8.self) {
                    try state.acceptUnparsedAnnotation(line: line.number, file: path)
                    try handle(.annotationText(id: id, text: text), line.number)
                    continue
                }
                let json = try Self.parse(line.bytes, with: &parser, line: line.number, file: path)
                guard let record = try state.accept(json, line: line.number, file: path) else { continue }
                if asText, !halfOfAnnotationsAsText, case .annotation(let object) = record,
                   case .string(let id)? = object["id"] {
                    // Written otherwise (another program's key order), parsed and checked here, and handed as its
                    // text all the same. The parser took it, so it is UTF-8 through and through.
                    try handle(.annotationText(id: id, text: String(decoding: line.bytes, as: UTF8.self)), line.number)
                } else {
                    try handle(record, line.number)
                }
            }
        } catch let error as GzipError {
            if case .lineTooLong(let number, let limit) = error {
                throw ArchiveError(file: path, line: number, kind: .tooLarge,
                                   reason: "the line is longer than \(limit) bytes")
            }
            throw ArchiveError(file: path, line: nil, kind: Self.kind(of: error), reason: error.description)
        } catch let error as IOError {
            throw ArchiveError(file: path, io: error)
        } catch let error as AgeError {
            throw ArchiveInput.refusal(error, file: path)
        }
        guard let header = state.header else {
            throw ArchiveError(file: path, kind: .truncated, reason: "truncated: the archive holds no records")
        }
        guard state.sawTrailer else {
            throw ArchiveError(file: path, line: lines.lineNumber, kind: .truncated,
                               reason: "truncated: the trailer (the last line, with the record counts) is missing")
        }
        // The gzip reader has read to the end of the file (it refuses anything after the gzip member).
        return ArchiveSummary(header: header, counts: state.counts, compressedBytes: gzip.compressedCount,
                              decompressedBytes: gzip.decompressedCount, sha256: try hashed.finalizeHex())
    }

    /// Parses and checks the text of an annotation's state record handed as `.annotationText`, and throws exactly
    /// what reading it as a record of the file would have thrown.
    /// - Throws: `ArchiveError` naming `file` and `line`.
    package static func checkedAnnotation(_ text: String, line: Int, file: String) throws -> JSONObject {
        let bytes = Array(text.utf8)
        // The line was read within the file's line limit, which bounds its strings too.
        var parser = JSONParser(limits: parserLimits(maxLineBytes: bytes.count))
        let json = try parse(bytes[...], with: &parser, line: line, file: file)
        var state = ReadState.inStateSection
        guard case .annotation(let object)? = try state.accept(json, line: line, file: file) else {
            throw ArchiveError(file: file, line: line, kind: .invalidRecord, reason: "not an annotation record")
        }
        return object
    }

    /// The parser's limits for lines of at most `maxLineBytes`: records nest a few levels deep at most.
    private static func parserLimits(maxLineBytes: Int) -> JSONParser.Limits {
        JSONParser.Limits(maxDepth: 8, maxStringLength: maxLineBytes)
    }

    private static func parse(_ bytes: ArraySlice<UInt8>, with parser: inout JSONParser, line: Int, file: String) throws
        -> JSONValue
    {
        do {
            return try parser.parse(bytes)
        } catch {
            throw ArchiveError(file: file, line: line, kind: .invalidRecord,
                               reason: "invalid JSON at byte \(error.offset + 1): \(error.reason)")
        }
    }

    /// The id of the annotation whose state record `line` is, when the line begins as this project's writer begins
    /// one, `{"type":"annotation","id":"…"`, with an id of plain characters (no escape, no control character);
    /// nil otherwise, for the line to be parsed.
    static func annotationID(ofLine line: ArraySlice<UInt8>) -> String? {
        let start = line.startIndex + annotationRecordStart.count
        guard line.count > annotationRecordStart.count, line.starts(with: annotationRecordStart) else { return nil }
        var end = start
        while end < line.endIndex {
            let byte = line[end]
            if byte == UInt8(ascii: "\"") { break }
            guard byte >= 0x20, byte != UInt8(ascii: "\\") else { return nil }
            end += 1
        }
        guard end < line.endIndex, end > start else { return nil }
        return String(validating: line[start..<end], as: UTF8.self)
    }

    private static let annotationRecordStart = Array(#"{"type":"annotation","id":""#.utf8)

    private static func kind(of error: GzipError) -> ArchiveError.Kind {
        switch error {
        case .truncated: return .truncated
        case .sizeLimitExceeded, .lineTooLong: return .tooLarge
        default: return .corrupt
        }
    }
}

/// Where the reader stands: which sections it has passed and what it has counted.
private struct ReadState {
    var header: ArchiveHeader?
    var counts = ArchiveCounts()
    var inStateSection = false
    var sawTrailer = false
    /// The ids of the receipt records read.
    var receipts: Set<Int64> = []

    /// The state of a reader past the header and the changes, to check one state record on its own.
    static var inStateSection: ReadState {
        var state = ReadState()
        // It stands for the file's header, which was read: only whether there is one matters to `accept`.
        state.header = ArchiveHeader(device: "", createdAt: "", schemaVersion: 0, editions: [], partial: false)
        state.inStateSection = true
        return state
    }

    /// Counts an annotation's state record handed unparsed (`annotationsAsText`), after the checks of its place
    /// in the file that `accept` makes of every record.
    mutating func acceptUnparsedAnnotation(line: Int, file: String) throws {
        if sawTrailer {
            throw ArchiveError(file: file, line: line, kind: .invalidRecord, reason: "a record after the trailer")
        }
        inStateSection = true
        counts.annotations += 1
    }

    mutating func accept(_ json: JSONValue, line: Int, file: String) throws -> ArchiveRecord? {
        func invalid(_ reason: String) -> ArchiveError {
            ArchiveError(file: file, line: line, kind: .invalidRecord, reason: reason)
        }
        guard case .object(let object) = json else { throw invalid("a record must be a JSON object") }
        guard case .string(let typeName)? = object["type"] else { throw invalid("the record has no \"type\"") }
        guard let type = ArchiveFormat.RecordType(rawValue: typeName) else {
            throw invalid("unknown record type \"\(typeName)\"")
        }
        if sawTrailer { throw invalid("a record after the trailer") }
        if header == nil && type != .header {
            throw ArchiveError(file: file, line: line, kind: .corrupt,
                               reason: "not a marginalia archive: the first line is not a header")
        }
        do {
            switch type {
            case .header:
                guard header == nil else { throw invalid("a second header") }
                let parsed = try ArchiveRecords.header(object)
                header = parsed
                return .header(parsed)
            case .receipt:
                return .receipt(try acceptReceipt(object, invalid: invalid))
            case .change:
                return try acceptChange(object, invalid: invalid)
            case .annotation:
                inStateSection = true
                try ArchiveRecords.checkAnnotation(object)
                counts.annotations += 1
                return .annotation(object)
            case .position:
                inStateSection = true
                try ArchiveRecords.checkPosition(object)
                counts.positions += 1
                return .position(object)
            case .trailer:
                try acceptTrailer(object, invalid: invalid)
                return nil
            }
        } catch let error as FieldError {
            throw invalid("\(typeName) record: \(error.description)")
        } catch let error as ArchiveRecords.NewerVersion {
            throw ArchiveError(file: file, line: line, kind: .newerVersion, reason: error.description)
        }
    }

    /// A receipt record: only in an archive of a format that has them, before the changes, each id once.
    private mutating func acceptReceipt(_ object: JSONObject, invalid: (String) -> ArchiveError) throws -> Receipt {
        guard (header?.formatVersion ?? 0) >= ArchiveFormat.receiptVersion else {
            throw invalid("unknown record type \"receipt\" in an archive of format \(header?.formatVersion ?? 0)")
        }
        guard counts.changes == 0, !inStateSection else { throw invalid("a receipt after the changes") }
        let receipt = try Receipt(archiveRecord: object)
        guard receipts.insert(receipt.id).inserted else { throw invalid("a second receipt \(receipt.id)") }
        return receipt
    }

    /// A change record: before the state records, naming only a receipt declared before it.
    private mutating func acceptChange(_ object: JSONObject, invalid: (String) -> ArchiveError) throws
        -> ArchiveRecord
    {
        guard !inStateSection else { throw invalid("a change after the state records") }
        let allowed = (header?.formatVersion ?? 0) >= ArchiveFormat.receiptVersion
        let change = try ChangeCodec.change(from: object, receiptAllowed: allowed)
        let receipt = try ChangeCodec.receipt(of: object)
        if let receipt, !receipts.contains(receipt) {
            throw invalid("change record: field \"receipt\": names receipt \(receipt), which no receipt "
                + "record before the changes declares")
        }
        counts.changes += 1
        return .change(change, receipt: receipt)
    }

    /// The trailer: its counts must be the records read.
    private mutating func acceptTrailer(_ object: JSONObject, invalid: (String) -> ArchiveError) throws {
        let declared = try ArchiveRecords.trailer(object)
        guard declared == counts else {
            throw invalid("the trailer counts \(declared.changes) changes, \(declared.annotations) annotations "
                + "and \(declared.positions) positions, but the archive holds \(counts.changes), "
                + "\(counts.annotations) and \(counts.positions)")
        }
        sawTrailer = true
    }
}
