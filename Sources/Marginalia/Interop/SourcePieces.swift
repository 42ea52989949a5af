/// The text of a foreign file read in pieces from a `ByteSource`: each piece checked UTF-8, never a code point cut
/// in two, so that a file of any size is read in the memory of one piece.
struct SourcePieces {
    /// How many bytes are read at a time.
    static let defaultPieceSize = 1 << 16

    private let source: any ByteSource
    private let file: String
    private var buffer: [UInt8]
    /// The bytes of a code point the last read ended inside, for the next piece.
    private var carry: [UInt8] = []
    /// How many bytes the pieces given so far hold (where the next piece starts in the file).
    private var consumed = 0
    private var atEnd = false

    /// Reads `source` (the file named `file` in messages) `pieceSize` bytes at a time.
    init(_ source: any ByteSource, file: String, pieceSize: Int = Self.defaultPieceSize) {
        self.source = source
        self.file = file
        buffer = [UInt8](repeating: 0, count: max(4, pieceSize))
    }

    /// The next piece of text; nil at the end of the file.
    /// - Throws: `InteropError` naming the first byte that is not UTF-8; the source's read errors.
    mutating func next() throws -> String? {
        while !atEnd {
            let count = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
            var bytes = carry
            bytes += buffer[..<count]
            let cut = count == 0 ? bytes.count : Self.completeLength(bytes)
            atEnd = count == 0
            carry = Array(bytes[cut...])
            let piece = bytes[..<cut]
            guard let text = String(validating: piece, as: UTF8.self) else {
                throw InteropError(file: file, line: nil, reason: "byte \(consumed + Self.validLength(piece)) is not "
                    + "UTF-8; the file must be UTF-8 text")
            }
            consumed += cut
            if !text.isEmpty { return text }
        }
        return nil
    }

    /// Reads the rest of the file, checking only that it is UTF-8: a reader that found a clipping or a record it
    /// cannot read calls it first, so that a file that is not UTF-8 is refused as such wherever its bad byte is,
    /// as when the file was decoded whole.
    mutating func checkRest() throws {
        while try next() != nil {}
    }

    /// How many of `bytes` end with a whole code point: a lead byte in the last three whose sequence goes past the
    /// end starts the part kept for the next piece.
    private static func completeLength(_ bytes: [UInt8]) -> Int {
        var index = bytes.count - 1
        while index >= 0 && index >= bytes.count - 4 {
            let byte = bytes[index]
            if byte & 0xC0 != 0x80 {
                let needed = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                return index + needed > bytes.count ? index : bytes.count
            }
            index -= 1
        }
        return bytes.count
    }

    /// How many bytes at the start of `bytes` are whole UTF-8 code points: where the first bad byte is.
    private static func validLength(_ bytes: ArraySlice<UInt8>) -> Int {
        var offset = 0
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while case .scalarValue(let scalar) = decoder.decode(&iterator) { offset += UTF8.width(scalar) }
        return offset
    }
}

/// Lines of a file read in pieces, split at CRLF, LF or CR (a CRLF split across two pieces too), each without
/// byte-order marks: what `SourceText.lines` gives for the whole text, one line at a time.
struct SourceLines {
    private(set) var pieces: SourcePieces
    private var splitter = LineSplitter()
    private var ready: [String] = []
    private var nextReady = 0
    private var finished = false

    init(_ pieces: SourcePieces) {
        self.pieces = pieces
    }

    /// The next line; nil after the last one.
    mutating func next() throws -> String? {
        while nextReady == ready.count {
            ready.removeAll(keepingCapacity: true)
            nextReady = 0
            if finished { return nil }
            if let piece = try pieces.next() {
                splitter.feed(piece) { ready.append($0) }
            } else {
                finished = true
                splitter.finish { ready.append($0) }
            }
        }
        defer { nextReady += 1 }
        return ready[nextReady]
    }

    /// Checks that the rest of the file is UTF-8 (see `SourcePieces.checkRest()`).
    mutating func checkRest() throws {
        try pieces.checkRest()
    }
}

/// Splits text given in pieces into lines, as `SourceText.lines` splits it whole.
struct LineSplitter {
    private var current = String.UnicodeScalarView()
    private var previousWasCR = false

    /// Adds `text`, giving `emit` every line it ends.
    mutating func feed(_ text: String, emit: (String) -> Void) {
        for scalar in text.unicodeScalars {
            if scalar == "\n" && previousWasCR {
                previousWasCR = false
                continue
            }
            previousWasCR = scalar == "\r"
            if scalar == "\n" || scalar == "\r" {
                emit(String(current))
                current = String.UnicodeScalarView()
            } else if scalar != SourceText.byteOrderMark {
                current.append(scalar)
            }
        }
    }

    /// Gives the last line, when the text does not end with a line break and it holds something.
    mutating func finish(emit: (String) -> Void) {
        if !current.isEmpty { emit(String(current)) }
        current = String.UnicodeScalarView()
    }
}
