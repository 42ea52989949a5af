#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What checking a segment file found.
enum SegmentRead {
    /// The file was gone by the time it was opened (compacted or moved by its writer).
    case gone
    /// The file ends before its end (empty, or cut short): a copy in progress, or one that stopped.
    case cutShort(String)
    /// The file is whole but fails its checks: its first bad line (when one) and why.
    case damaged(line: Int?, reason: String)
    /// The file is encrypted to a key this store does not hold, or not authenticated by a holder of one: why.
    case refused(String)
    /// The file is whole and every record is valid.
    case whole(SegmentSummary)
}

/// A segment that checked whole.
struct SegmentSummary {
    var header: SegmentHeader
    var changeCount: Int
    var size: Int64
    var sha256: String
    /// The ids of its changes, in order, when asked for.
    var changeIDs: [String]?
}

/// One segment file, opened once (never through a symbolic link) and read as a stream: `check()` reads it whole
/// and checks every record without keeping any; `changes(chunk:_:)` then reads the same open file again and hands
/// its changes a chunk at a time. Memory stays bounded by one line and one chunk, whatever the file holds.
/// An encrypted segment is decrypted as it is read, and its tag checked before any change is handed on.
final class SegmentFile {
    let path: String
    private let descriptor: Int32
    private let keys: SegmentKeys
    /// Whose signature a segment must carry, and with which key it checks; nil: signatures are not asked for (a
    /// store outside any roster reading a folder of format 2).
    private let trust: SegmentTrust?

    /// Opens the segment at `path`, to be read with `keys` when it is encrypted and checked against `trust`; nil when
    /// it is gone.
    /// - Throws: `IOError` when it cannot be opened otherwise (a symbolic link, no permission).
    init?(path: String, keys: SegmentKeys = .none, trust: SegmentTrust? = nil) throws {
        self.path = path
        self.keys = keys
        self.trust = trust
        do {
            descriptor = try SystemIO.open(path, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        } catch let error as IOError where error.code == ENOENT {
            return nil
        }
    }

    deinit {
        try? SystemIO.close(descriptor, path: path)
    }

    /// Reads the file whole and checks it: gzip intact, a header, valid change records, a trailer that counts them.
    func check(collectingIDs: Bool = false) throws -> SegmentRead {
        var ids: [String]? = collectingIDs ? [] : nil
        do {
            let (header, count, size, sha256) = try read { change in ids?.append(change.changeID) }
            return .whole(SegmentSummary(header: header, changeCount: count, size: size, sha256: sha256,
                                         changeIDs: ids))
        } catch let problem as Problem {
            if problem.refused { return .refused(problem.reason) }
            return problem.cutShort ? .cutShort(problem.reason) : .damaged(line: problem.line, reason: problem.reason)
        }
    }

    /// Reads the file again and hands its changes to `body`, `chunk` at a time.
    /// - Throws: `Problem` when the file no longer reads as `check()` found it; whatever `body` throws.
    func changes(chunk: Int, _ body: ([Change]) throws -> Void) throws {
        var changes: [Change] = []
        changes.reserveCapacity(chunk)
        _ = try read { change in
            changes.append(change)
            if changes.count >= chunk {
                try body(changes)
                changes.removeAll(keepingCapacity: true)
            }
        }
        if !changes.isEmpty { try body(changes) }
    }

    /// Why the file does not read whole.
    struct Problem: Error, CustomStringConvertible {
        var line: Int?
        var reason: String
        /// The file ends early, rather than holding something wrong.
        var cutShort = false
        /// The file is encrypted to a key this store does not hold, or not authenticated.
        var refused = false
        var description: String { line.map { "line \($0): \(reason)" } ?? reason }
    }

    /// Reads the file from its start, checking each line as an archive's is checked, and hands each change to
    /// `handle`. Returns the header, the number of changes, the size and the SHA-256 of the bytes read.
    private func read(_ handle: (Change) throws -> Void) throws -> (SegmentHeader, Int, Int64, String) {
        guard lseek(descriptor, 0, SEEK_SET) == 0 else { throw IOError.posix("lseek", path: path) }
        let limits = SyncFormat.segmentLimits
        let file = FileSource(fileDescriptor: descriptor, name: path)
        let counted = try CountingSource(file, limit: SyncFormat.maxSegmentBytes, path: path)
        let hashed = try HashingSource(counted)
        let lines: LineReader
        let headerMAC: [UInt8]?
        do {
            let plaintext = try keys.open(hashed)
            headerMAC = plaintext.headerMAC
            let gzip = try GzipReader(source: plaintext.source, maxDecompressedBytes: limits.maxDecompressedBytes)
            lines = LineReader(source: gzip, maxLineBytes: limits.maxLineBytes)
        } catch {
            throw Self.problem(error)
        }
        var parser = JSONParser(limits: JSONParser.Limits(maxDepth: 8, maxStringLength: limits.maxLineBytes))
        var header: SegmentHeader?
        var trailer: ArchiveCounts?
        var signature: SegmentSignature?
        var count = 0
        let signed = try SHA256Hasher()
        do {
            while let line = try lines.next() {
                let record = try Self.record(of: line, parser: &parser, afterTrailer: trailer != nil,
                                             afterSignature: signature != nil)
                if case .signature = record {} else {
                    try line.bytes.withUnsafeBytes { try signed.update($0) }
                    try signed.update([0x0A])
                }
                switch record {
                case .header(let read):
                    do {
                        // A segment of a roster is authenticated by its signature (checked at its end); a tag
                        // is checked where there is one, or where no signature is asked for.
                        if let headerMAC, trust == nil || read.auth != nil {
                            try keys.authenticate(read, headerMAC: headerMAC)
                        }
                    } catch let problem as Problem {
                        throw problem
                    } catch {
                        throw Problem(line: line.number, reason: "\(error)")
                    }
                    header = read
                case .change(let change):
                    try handle(change)
                    count += 1
                case .trailer(let read):
                    trailer = read
                case .signature(let read):
                    signature = read
                }
            }
        } catch let problem as Problem {
            throw problem
        } catch AgeError.chunkAuthenticationFailed where counted.count == size() {
            // The chunk that fails is the file's last: a copy in progress cuts one as well as an alteration does.
            throw Problem(line: nil, reason: "encrypted file: its last payload chunk does not authenticate (cut "
                + "short, or altered)", cutShort: true)
        } catch {
            throw Self.problem(error)
        }
        guard let header else { throw Problem(line: nil, reason: "empty: a copy in progress", cutShort: true) }
        guard let trailer else { throw Problem(line: lines.lineNumber, reason: "no trailer: the segment ends early") }
        guard trailer.changes == count, trailer.annotations == 0, trailer.positions == 0 else {
            throw Problem(line: lines.lineNumber, reason: "the trailer counts \(trailer.changes) changes; the segment "
                + "holds \(count)")
        }
        if let trust {
            try trust.check(signature, of: header, digest: try signed.finalizeHex(), line: lines.lineNumber)
        }
        return (header, count, counted.count, try hashed.finalizeHex())
    }

    /// What a line of a segment holds: its header (line 1), a change, or its trailer.
    private enum Record {
        case header(SegmentHeader)
        case change(Change)
        case trailer(ArchiveCounts)
        case signature(SegmentSignature)
    }

    /// Reads one line of a segment as its record: the header on the first line, then changes, then the trailer
    /// and nothing after it.
    /// - Throws: `Problem` naming the line: cut short (no final line feed), not JSON, or not a segment's record.
    private static func record(of line: LineReader.Line, parser: inout JSONParser, afterTrailer: Bool,
                               afterSignature: Bool) throws -> Record
    {
        guard line.endsWithNewline else {
            throw Problem(line: line.number, reason: "the last line does not end with a line feed", cutShort: true)
        }
        let object: JSONObject
        do {
            guard case .object(let parsed) = try parser.parse(line.bytes) else {
                throw Problem(line: line.number, reason: "not a JSON object")
            }
            object = parsed
        } catch let error as JSONParseError {
            throw Problem(line: line.number, reason: "not JSON: \(error)")
        }
        do {
            if line.number == 1 { return .header(try SegmentHeader(json: object)) }
            if afterSignature { throw FieldError(field: "type", reason: "a record after the signature") }
            if afterTrailer {
                guard case .string("signature")? = object["type"] else {
                    throw FieldError(field: "type", reason: "a record after the trailer")
                }
                return .signature(try SegmentSignature(json: object))
            }
            switch object["type"] {
            case .string(ChangeCodec.type)?: return .change(try ChangeCodec.change(from: object))
            case .string("trailer")?: return .trailer(try ArchiveRecords.trailer(object))
            default: throw FieldError(field: "type", reason: "must be \"change\" or \"trailer\" in a segment")
            }
        } catch let problem as Problem {
            throw problem
        } catch {
            throw Problem(line: line.number, reason: "\(error)")
        }
    }

    /// The size of the open file; nil when it cannot be told.
    private func size() -> Int64? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        return Int64(status.st_size)
    }

    /// A gzip or age failure as a problem: a stream that ends early is cut short; a key this store does not hold
    /// is a refusal; any other is damage, with the line when a line is at fault. Other errors pass.
    private static func problem(_ error: any Error) -> any Error {
        if let age = error as? AgeError { return SegmentKeys.problem(age) }
        guard let gzip = error as? GzipError else { return error }
        switch gzip {
        case .emptyFile: return Problem(line: nil, reason: "empty: a copy in progress", cutShort: true)
        case .truncated: return Problem(line: nil, reason: gzip.description, cutShort: true)
        case .lineTooLong(let line, let limit):
            return Problem(line: line, reason: "the line is longer than \(limit) bytes")
        default: return Problem(line: nil, reason: gzip.description)
        }
    }

    /// The bytes of a segment: header, the changes, trailer, gzip-compressed; an age file of them when `keys` seal
    /// the segments written (the header then carries its tag).
    static func encode(header: SegmentHeader, changes: [Change], keys: SegmentKeys = .none,
                       signer: SegmentSigner? = nil) throws -> [UInt8] {
        let sink = ByteArraySink()
        var header = header
        let encryptor = try keys.seal(&header, into: sink)
        let output: any ByteSink = if let encryptor { encryptor } else { sink }
        let gzip = try GzipWriter(sink: output)
        let signed = try SHA256Hasher()
        // The signature covers every line before its own.
        var lines = LineWriter(blockSize: 1 << 16) { block in
            try signed.update(block)
            try gzip.write(block)
        }
        try lines.write(header.json)
        for change in changes { try lines.write(.object(ChangeCodec.record(change))) }
        try lines.write(ArchiveCounts(changes: changes.count).trailerJSON)
        try lines.flush()
        if let signer {
            let signature = try signer.sign(digest: try signed.finalizeHex(), of: header)
            try gzip.write(try JSONWriter.encode(signature.json) + [0x0A])
        }
        try gzip.finish()
        try encryptor?.finish()
        return sink.bytes
    }
}

@available(*, unavailable)
extension SegmentFile: Sendable {}

/// A `ByteSource` that counts the bytes it passes on and refuses to pass more than `limit`.
private final class CountingSource: ByteSource {
    private let base: any ByteSource
    private let limit: Int64
    private let path: String
    private(set) var count: Int64 = 0

    init(_ base: any ByteSource, limit: Int64, path: String) throws {
        self.base = base
        self.limit = limit
        self.path = path
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let read = try base.read(into: buffer)
        count += Int64(read)
        guard count <= limit else {
            throw SegmentFile.Problem(line: nil, reason: "larger than \(limit) bytes: not a segment marginalia wrote")
        }
        return read
    }
}
