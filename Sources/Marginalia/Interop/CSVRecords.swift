/// Reads CSV as RFC 4180 defines it, and as spreadsheets and Readwise write it: records of fields separated by
/// commas, a field in double quotes holding commas, line breaks and quotes doubled, records ending with CRLF, LF or
/// CR.
///
/// "Each record is located on a separate line, delimited by a line break (CRLF)." "Fields containing line breaks
/// (CRLF), double quotes, and commas should be enclosed in double-quotes." "If double-quotes are used to enclose
/// fields, then a double-quote appearing inside a field must be escaped by preceding it with another double quote."
/// https://www.rfc-editor.org/rfc/rfc4180#section-2
///
/// A quote inside an unquoted field is taken as it is (as Python's `csv` does); text after a closing quote, or a
/// quoted field the file does not close, is an error naming the line. Empty lines are no records.
enum CSVRecords {
    /// One record and the line of the file it starts on (1-based).
    struct Record {
        var line: Int
        var fields: [String]
    }

    /// What is wrong with the text, and on which line.
    struct SyntaxError: Error {
        var line: Int
        var reason: String
    }

    /// The records of a file's bytes: UTF-8 (a byte-order mark at its start dropped), its syntax errors as
    /// `InteropError`s naming `file` and the line.
    static func records(_ bytes: [UInt8], file: String) throws -> [Record] {
        var records: [Record] = []
        try read(ByteArraySource(bytes), file: file) { records.append($0) }
        return records
    }

    /// Reads the records of `source` in pieces (a record's quoted field may span pieces and lines), giving each to
    /// `body` in file order.
    /// - Throws: `InteropError` naming the line of a syntax error, or the first byte that is not UTF-8 (wherever it
    ///   is: that is checked first); what `body` throws.
    static func read(_ source: any ByteSource, file: String, pieceSize: Int = SourcePieces.defaultPieceSize,
                     _ body: (Record) throws -> Void) throws {
        var pieces = SourcePieces(source, file: file, pieceSize: pieceSize)
        var parser = CSVRecordParser()
        var first = true
        do {
            while let piece = try pieces.next() {
                var scalars = piece.unicodeScalars[...]
                if first, scalars.first == SourceText.byteOrderMark { scalars = scalars.dropFirst() }
                first = false
                for scalar in scalars {
                    if let record = try parser.feed(scalar) { try body(record) }
                }
            }
            if let record = try parser.finish() { try body(record) }
        } catch let error as SyntaxError {
            try pieces.checkRest()
            throw InteropError(file: file, line: error.line, reason: error.reason)
        }
    }

    /// The records of `text` (without a byte-order mark at its start).
    static func records(_ text: String) throws(SyntaxError) -> [Record] {
        var records: [Record] = []
        var parser = CSVRecordParser()
        for scalar in text.unicodeScalars {
            if let record = try parser.feed(scalar) { records.append(record) }
        }
        if let record = try parser.finish() { records.append(record) }
        return records
    }
}

/// The state of `CSVRecords`' reading between one code point and the next, so that text given in pieces is read
/// as the whole text would be.
struct CSVRecordParser {
    private var fields: [String] = []
    private var field = String.UnicodeScalarView()
    private var line = 1
    private var recordLine = 1
    private var fieldIsQuoted = false
    private var quoteLine = 0
    private var inQuotes = false
    /// A quote inside a quoted field: a doubled quote or the closing one, which the next code point tells.
    private var quotePending = false
    private var afterClosingQuote = false
    private var previousWasCR = false
    private var recordStarted = false

    /// Reads one code point; returns the record it ends, if any.
    mutating func feed(_ scalar: Unicode.Scalar) throws(CSVRecords.SyntaxError) -> CSVRecords.Record? {
        if quotePending {
            quotePending = false
            if scalar == "\"" {
                field.append("\"")
                return nil
            }
            inQuotes = false
            afterClosingQuote = true
        }
        let wasCR = previousWasCR
        previousWasCR = false
        if inQuotes {
            if scalar == "\"" {
                quotePending = true
            } else {
                if scalar == "\n" && !wasCR || scalar == "\r" { line += 1 }
                previousWasCR = scalar == "\r"
                field.append(scalar)
            }
            return nil
        }
        switch scalar {
        case ",":
            if !recordStarted { recordLine = line }
            recordStarted = true
            endField()
        case "\r", "\n":
            if scalar == "\n" && wasCR { return nil }
            previousWasCR = scalar == "\r"
            defer { line += 1 }
            return endRecord()
        case "\"" where field.isEmpty && !fieldIsQuoted && !afterClosingQuote:
            if !recordStarted { recordLine = line }
            recordStarted = true
            fieldIsQuoted = true
            inQuotes = true
            quoteLine = line
        default:
            if afterClosingQuote {
                throw CSVRecords.SyntaxError(line: line, reason: "text after the closing quote of a field (a quote in "
                    + "a quoted field is written twice: \"\")")
            }
            if !recordStarted { recordLine = line }
            recordStarted = true
            field.append(scalar)
        }
        return nil
    }

    /// Ends the text: the last record, if the text does not end with a line break.
    mutating func finish() throws(CSVRecords.SyntaxError) -> CSVRecords.Record? {
        if quotePending {
            quotePending = false
            inQuotes = false
            afterClosingQuote = true
        }
        if inQuotes {
            throw CSVRecords.SyntaxError(line: quoteLine, reason: "a quoted field that the file does not close")
        }
        guard recordStarted || !field.isEmpty || !fields.isEmpty else { return nil }
        return endRecord()
    }

    private mutating func endField() {
        fields.append(String(field))
        field = String.UnicodeScalarView()
        fieldIsQuoted = false
        afterClosingQuote = false
    }

    private mutating func endRecord() -> CSVRecords.Record? {
        endField()
        defer {
            fields = []
            recordStarted = false
        }
        // A line with nothing on it is no record (a blank line, or the line break at the end of the file).
        guard !(fields.count == 1 && fields[0].isEmpty && !recordStarted) else { return nil }
        return CSVRecords.Record(line: recordLine, fields: fields)
    }
}
