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
        var text = try SourceText.decode(bytes, file: file)
        if text.unicodeScalars.first == SourceText.byteOrderMark { text.unicodeScalars.removeFirst() }
        do {
            return try records(text)
        } catch {
            throw InteropError(file: file, line: error.line, reason: error.reason)
        }
    }

    /// The records of `text` (without a byte-order mark at its start).
    static func records(_ text: String) throws(SyntaxError) -> [Record] {
        var records: [Record] = []
        var fields: [String] = []
        var field = String.UnicodeScalarView()
        var line = 1
        var recordLine = 1
        var fieldIsQuoted = false
        var quoteLine = 0
        var inQuotes = false
        var afterClosingQuote = false
        var previousWasCR = false
        var recordStarted = false

        func endField() {
            fields.append(String(field))
            field = String.UnicodeScalarView()
            fieldIsQuoted = false
            afterClosingQuote = false
        }
        func endRecord() {
            endField()
            // A line with nothing on it is no record (a blank line, or the line break at the end of the file).
            if !(fields.count == 1 && fields[0].isEmpty && !recordStarted) {
                records.append(Record(line: recordLine, fields: fields))
            }
            fields = []
            recordStarted = false
        }

        var scalars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        while let scalar = pending ?? scalars.next() {
            pending = nil
            let wasCR = previousWasCR
            previousWasCR = false
            if inQuotes {
                if scalar == "\"" {
                    let next = scalars.next()
                    if next == "\"" {
                        field.append("\"")
                    } else {
                        inQuotes = false
                        afterClosingQuote = true
                        pending = next
                    }
                } else {
                    if scalar == "\n" && !wasCR || scalar == "\r" { line += 1 }
                    previousWasCR = scalar == "\r"
                    field.append(scalar)
                }
                continue
            }
            switch scalar {
            case ",":
                if !recordStarted { recordLine = line }
                recordStarted = true
                endField()
            case "\r", "\n":
                if scalar == "\n" && wasCR { continue }
                previousWasCR = scalar == "\r"
                endRecord()
                line += 1
            case "\"" where field.isEmpty && !fieldIsQuoted && !afterClosingQuote:
                if !recordStarted { recordLine = line }
                recordStarted = true
                fieldIsQuoted = true
                inQuotes = true
                quoteLine = line
            default:
                if afterClosingQuote {
                    throw SyntaxError(line: line, reason: "text after the closing quote of a field (a quote in a "
                        + "quoted field is written twice: \"\")")
                }
                if !recordStarted { recordLine = line }
                recordStarted = true
                field.append(scalar)
            }
        }
        if inQuotes {
            throw SyntaxError(line: quoteLine, reason: "a quoted field that the file does not close")
        }
        if recordStarted || !field.isEmpty || !fields.isEmpty { endRecord() }
        return records
    }
}
